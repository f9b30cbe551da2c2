// A whole wheel installed from a fuzzed archive: libzip's reading of the
// central directory and entries, the path checks (zip slip, absolute
// paths, symlinks, duplicates), the size and ratio limits, RECORD
// checking. Bad archives must be refused with IntegrityError (unsafe or
// lying archive), UsageError (not a wheel) or IoError; and nothing may be
// written outside the install root.
#include <algorithm>
#include <cctype>
#include <fstream>

#include "core/errors.hpp"
#include "fuzz_support.hpp"
#include "wheel/installer.hpp"

using namespace wheelmod;
namespace fs = std::filesystem;

namespace {

// The installer finds `<name>-<version>.dist-info` from the wheel's file
// name; name the file after the first such directory in the archive's
// bytes, so that inputs get past that check and into the entries.
std::string wheel_name_for(std::string_view bytes) {
  const auto marker = bytes.find(".dist-info/");
  if (marker == std::string_view::npos) return "demo-1.0-py3-none-any.whl";
  auto start = marker;
  while (start > 0 && (std::isalnum(static_cast<unsigned char>(bytes[start - 1])) != 0 ||
                       std::string_view("._+-").find(bytes[start - 1]) != std::string_view::npos))
    --start;
  const auto stem = std::string(bytes.substr(start, marker - start));
  if (std::ranges::count(stem, '-') != 1) return "demo-1.0-py3-none-any.whl";
  return stem + "-py3-none-any.whl";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto base = fuzz::scratch_dir();
  for (const auto& entry : fs::directory_iterator(base))
    if (entry.path().extension() == ".whl") fs::remove(entry.path());
  const auto wheel_file = base / wheel_name_for(fuzz::as_text(data, size));
  const auto root = base / "inside" / "prefix";
  {
    std::ofstream out(wheel_file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  fs::remove_all(base / "inside");
  fs::create_directories(root);
  wheel::InstallScheme scheme{root, "3.12"};
  wheel::InstallOptions options;
  options.threads = 1;
  NullReporter reporter;
  try {
    (void)wheel::install_wheel(wheel_file, scheme, options, reporter);
  } catch (const IntegrityError&) {
  } catch (const UsageError&) {
  } catch (const IoError&) {
  }
  // Only the wheel and the install root may exist in the scratch dir.
  for (const auto& entry : fs::directory_iterator(base)) {
    const auto name = entry.path().filename();
    WHEELMOD_FUZZ_CHECK(name == wheel_file.filename() || name == "inside" || name == "site" ||
                            name == "mirror.yaml",
                        "written outside the install root: " + entry.path().string());
  }
  for (const auto& entry : fs::directory_iterator(base / "inside"))
    WHEELMOD_FUZZ_CHECK(entry.path() == root,
                        "written beside the install root: " + entry.path().string());
  return 0;
}
