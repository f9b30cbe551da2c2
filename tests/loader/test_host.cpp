// The loader's picture of this host against ld.so itself: the text of
// `ld.so --help` / `--list-diagnostics` read into an environment, and the
// directories ld.so really searches (LD_DEBUG=libs prints each search path).
#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "elf/loader.hpp"
#include "loader_oracle.hpp"

namespace elf = wheelmod::elf;
using wheelmod::test::run_command;
using wheelmod::test::shell_quote;

namespace {

// Debian 12 x86_64, glibc 2.36, on a CPU without AVX-512.
constexpr const char* k_debian_help =
    R"(Usage: ld.so [OPTION]... EXECUTABLE-FILE [ARGS-FOR-PROGRAM...]
  --list                list all dependencies and how they are resolved

This program interpreter self-identifies as: /lib64/ld-linux-x86-64.so.2

Shared library search path:
  (libraries located via /etc/ld.so.cache)
  /lib/x86_64-linux-gnu (system search path)
  /usr/lib/x86_64-linux-gnu (system search path)
  /lib (system search path)
  /usr/lib (system search path)

Subdirectories of glibc-hwcaps directories, in priority order:
  x86-64-v4
  x86-64-v3 (supported, searched)
  x86-64-v2 (supported, searched)

Legacy HWCAP subdirectories under library search path directories:
  x86_64 (AT_PLATFORM; supported, searched)
  tls (supported, searched)
  avx512_1
  x86_64 (supported, searched)
)";

constexpr const char* k_debian_diagnostics = R"(dl_dst_lib="lib/x86_64-linux-gnu"
dl_hwcap=0x2
dl_platform="x86_64"
path.system_dirs[0x0]="/lib/x86_64-linux-gnu/"
)";

// The " search path=..." line ld.so prints (LD_DEBUG=libs) that ends in `origin`.
std::string debug_search_path(const std::string& output, const std::string& origin) {
  std::size_t start = 0;
  while (start < output.size()) {
    const auto end = output.find('\n', start);
    const std::string line = output.substr(start, end - start);
    const auto at = line.find("search path=");
    if (at != std::string::npos && line.find(origin) != std::string::npos) {
      const std::string rest = line.substr(at + 12);
      return rest.substr(0, rest.find_first_of(" \t"));
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return {};
}

// What ld.so searches for `dirs` in `environment`, as LD_DEBUG spells it.
std::string expected_search_path(const std::vector<std::string>& dirs,
                                 const elf::LoaderEnvironment& environment) {
  std::string out;
  for (const auto& dir : dirs) {
    std::vector<std::string> tried;
    for (const auto& name : environment.glibc_hwcaps)
      tried.push_back(dir + "/glibc-hwcaps/" + name);
    for (const auto& sub : environment.legacy_hwcap_subdirs) tried.push_back(dir + "/" + sub);
    tried.push_back(dir);
    for (const auto& one : tried) out += (out.empty() ? "" : ":") + one;
  }
  return out;
}

}  // namespace

TEST_CASE("ld.so's help and diagnostics text become an environment", "[elf][loader][host]") {
  const auto environment = elf::environment_from_ld_so(k_debian_help, k_debian_diagnostics);
  CHECK(environment.system_dirs == std::vector<std::string>{"/lib/x86_64-linux-gnu",
                                                            "/usr/lib/x86_64-linux-gnu", "/lib",
                                                            "/usr/lib"});
  CHECK(environment.glibc_hwcaps == std::vector<std::string>{"x86-64-v3", "x86-64-v2"});
  // Every combination of tls, the platform and the hwcap, as ld.so 2.36 searches them.
  CHECK(environment.legacy_hwcap_subdirs ==
        std::vector<std::string>{"tls/x86_64/x86_64", "tls/x86_64", "tls/x86_64", "tls",
                                 "x86_64/x86_64", "x86_64", "x86_64"});
  CHECK(environment.lib == "lib/x86_64-linux-gnu");
  CHECK(environment.platform == std::optional<std::string>("x86_64"));
}

TEST_CASE("without diagnostics $LIB is the first system directory", "[elf][loader][host]") {
  const std::string rhel =
      "Shared library search path:\n"
      "  (libraries located via /etc/ld.so.cache)\n"
      "  /lib64 (system search path)\n"
      "  /usr/lib64 (system search path)\n";
  const auto environment = elf::environment_from_ld_so(rhel, "");
  CHECK(environment.system_dirs == std::vector<std::string>{"/lib64", "/usr/lib64"});
  CHECK(environment.lib == "lib64");
  CHECK_FALSE(environment.platform.has_value());
  CHECK(environment.glibc_hwcaps.empty());
  CHECK(environment.legacy_hwcap_subdirs.empty());
  const auto nothing = elf::environment_from_ld_so("", "");
  CHECK(nothing.system_dirs.empty());
  CHECK(nothing.lib == "lib");
}

TEST_CASE("this host's environment is what its ld.so searches", "[elf][loader][host]") {
  const auto environment = elf::host_environment();
  REQUIRE_FALSE(environment.system_dirs.empty());
  REQUIRE_FALSE(environment.interpreter.empty());
  CHECK(environment.ld_library_path.empty());
  CHECK(environment.working_directory == std::filesystem::current_path());
  const auto fixtures = std::filesystem::canonical(WHEELMOD_LOADER_FIXTURES).string();

  // The system directories: libgone.so is in no cache, so ld.so searches them all.
  const std::string missing =
      run_command("env -u LD_LIBRARY_PATH LD_DEBUG=libs " +
                  shell_quote(fixtures + "/missing/bin/exe_missing") + " 2>&1");
  CHECK(debug_search_path(missing, "(system search path)") ==
        expected_search_path(environment.system_dirs, environment));

  // A DT_RPATH with $ORIGIN, in a program started normally.
  const std::string started = run_command("env -u LD_LIBRARY_PATH LD_DEBUG=libs " +
                                          shell_quote(fixtures + "/chain/bin/exe_rpath") + " 2>&1");
  const std::string bin = fixtures + "/chain/bin";
  CHECK(debug_search_path(started, "(RPATH from file") ==
        expected_search_path({bin + "/../liba", bin + "/../libb"}, environment));
}

TEST_CASE("LD_LIBRARY_PATH is taken from the process only when asked", "[elf][loader][host]") {
  const char* saved = std::getenv("LD_LIBRARY_PATH");
  const std::string previous = saved == nullptr ? "" : saved;
  ::setenv("LD_LIBRARY_PATH", "/one:/two;/three", 1);
  const auto unset = elf::host_environment();
  const auto from_process = elf::host_environment(elf::LdLibraryPath::from_process);
  if (saved == nullptr)
    ::unsetenv("LD_LIBRARY_PATH");
  else
    ::setenv("LD_LIBRARY_PATH", previous.c_str(), 1);
  CHECK(unset.ld_library_path.empty());
  CHECK(from_process.ld_library_path == std::vector<std::string>{"/one", "/two", "/three"});
}
