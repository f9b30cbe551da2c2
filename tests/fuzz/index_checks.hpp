// What every parsed index page must satisfy, HTML or JSON: links with
// absolute URLs without a fragment, file names without a slash, hashes in
// lower-case hex (the page parsers' promises in index/page.hpp).
#pragma once

#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "index/page.hpp"

namespace wheelmod::fuzz {

inline void check_links(const index::ProjectPage& page, std::string_view input) {
  for (const auto& link : page.links) {
    const std::string context = "input:\n" + std::string(input) + "\nurl: " + link.url;
    WHEELMOD_FUZZ_CHECK(link.url.find('#') == std::string::npos, context);
    WHEELMOD_FUZZ_CHECK(link.filename.find('/') == std::string::npos, context);
    for (const auto& hash : link.hashes)
      WHEELMOD_FUZZ_CHECK(hash.hex.find_first_not_of("0123456789abcdef") == std::string::npos,
                          context + "\nhash: " + hash.hex);
  }
}

}  // namespace wheelmod::fuzz
