// PEP 691 JSON pages (project and root), parsed with nlohmann::json.
// Properties: index_checks.hpp.
#include "index_checks.hpp"

using namespace wheelmod;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = fuzz::as_text(data, size);
  if (const auto page = index::parse_project_json(text, "https://download.pytorch.org/whl/cu126/torch/"))
    fuzz::check_links(*page, text);
  (void)index::parse_root_json(text);
  return 0;
}
