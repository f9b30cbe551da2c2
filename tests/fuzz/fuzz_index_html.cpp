// PEP 503 HTML pages (project and root), parsed with gumbo.
// Properties: index_checks.hpp.
#include "index_checks.hpp"

using namespace wheelmod;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = fuzz::as_text(data, size);
  if (const auto page = index::parse_project_html(text, "https://download.pytorch.org/whl/cu126/torch/"))
    fuzz::check_links(*page, text);
  (void)index::parse_root_html(text);
  return 0;
}
