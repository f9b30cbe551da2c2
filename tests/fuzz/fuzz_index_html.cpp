// PEP 503 HTML pages (project and root), parsed with gumbo. Properties:
// every link has an absolute URL without a fragment and a file name
// without a slash; hashes are lower-case hex.
#include "fuzz_support.hpp"
#include "index/page.hpp"

using namespace wheelmod;

namespace {

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
  if (const auto page = index::parse_project_html(text, "https://download.pytorch.org/whl/cu126/torch/"))
    check_links(*page, text);
  (void)index::parse_root_html(text);
  return 0;
}
