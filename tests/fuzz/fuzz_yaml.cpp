// The YAML loaders: a mirror spec (mirror/spec.cpp) and the site's
// toolchain and dependency tables (easybuild/config.cpp), both through
// yaml-cpp and wheelmod's Cursor. Bad input must be a UsageError naming
// file:line:column, never a crash, a hang or another exception. The first
// byte picks the loader; the rest is the file.
#include <fstream>

#include "core/errors.hpp"
#include "easybuild/config.hpp"
#include "fuzz_support.hpp"
#include "mirror/spec.hpp"

using namespace wheelmod;
namespace fs = std::filesystem;

namespace {

void write_file(const fs::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto text = fuzz::as_text(data + 1, size - 1);
  try {
    switch (data[0] % 3) {
      case 0: {
        const auto spec_file = fuzz::scratch_dir() / "mirror.yaml";
        write_file(spec_file, text);
        (void)mirror::load_spec(spec_file);
        break;
      }
      default: {
        // The fuzzed file is the site's toolchains.yaml or
        // eb-dependencies.yaml, merged over the shipped tables.
        const auto site = fuzz::scratch_dir() / "site";
        fs::remove_all(site);
        fs::create_directories(site);
        write_file(site / (data[0] % 3 == 1 ? "toolchains.yaml" : "eb-dependencies.yaml"), text);
        (void)easybuild::SiteConfig::load(easybuild::SiteConfig::default_dir(), site);
        break;
      }
    }
  } catch (const UsageError&) {
  }
  return 0;
}
