// read_entry_names (wheel/startup_code.hpp): a wheel file's entry names, read as the installer
// reads them.
#include "wheel/startup_code.hpp"
#include "zip_layout.hpp"

namespace wheelmod::wheel {

std::vector<std::string> read_entry_names(const std::filesystem::path& wheel_file) {
  std::vector<std::string> names;
  if (auto layout = read_zip_layout(wheel_file))
    for (auto& entry : *layout) names.push_back(std::move(entry.name));
  return names;
}

}  // namespace wheelmod::wheel
