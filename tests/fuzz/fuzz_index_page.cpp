// Index pages: PEP 503 HTML (src/index/html_anchors), or, built with
// WHEELMOD_FUZZ_INDEX_JSON, PEP 691 JSON (nlohmann::json); the project
// page and the root page from the same bytes, and (HTML) the same bytes read
// as a root listing. Properties: every link has an absolute URL without a
// fragment, a file name without a slash, and lower-case hex hashes; every
// listing entry a name without a slash, whitespace or ".." (what
// index/page.hpp promises its callers).
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "index/page.hpp"

using namespace wheelmod;

namespace {

#ifdef WHEELMOD_FUZZ_INDEX_JSON
constexpr auto parse_project = index::parse_project_json;
constexpr auto parse_root = index::parse_root_json;
#else
constexpr auto parse_project = index::parse_project_html;
constexpr auto parse_root = index::parse_root_html;
#endif

void check_links(const index::ProjectPage& page, std::string_view input) {
  for (const auto& link : page.links) {
    const std::string context = "input:\n" + std::string(input) + "\nurl: " + link.url;
    WHEELMOD_FUZZ_CHECK(link.url.find('#') == std::string::npos, context);
    WHEELMOD_FUZZ_CHECK(link.filename.find('/') == std::string::npos, context);
    for (const auto& hash : link.hashes)
      WHEELMOD_FUZZ_CHECK(hash.hex.find_first_not_of("0123456789abcdef") == std::string::npos,
                          context + "\nhash: " + hash.hex);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = fuzz::as_text(data, size);
  if (const auto page = parse_project(text, "https://download.pytorch.org/whl/cu126/torch/"))
    check_links(*page, text);
  (void)parse_root(text);
#ifndef WHEELMOD_FUZZ_INDEX_JSON
  if (const auto entries = index::parse_root_listing(text, "https://proxy.example/simple/"))
    for (const auto& entry : *entries) {
      const std::string context = "input:\n" + std::string(text) + "\nentry: " + entry.name;
      WHEELMOD_FUZZ_CHECK(!entry.name.empty() && entry.name != "." && entry.name != "..", context);
      WHEELMOD_FUZZ_CHECK(entry.name.find_first_of("/ \t\r\n") == std::string::npos, context);
    }
#endif
  return 0;
}
