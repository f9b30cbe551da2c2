// The loader on real files (tests/loader/CMakeLists.txt links them) against
// glibc's ld.so: every file's verdicts and paths must be what `ldd` lists,
// in the same order; then each scenario's own point, asserted directly.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "elf/loader.hpp"
#include "loader_oracle.hpp"
#include "temp_dir.hpp"

namespace elf = wheelmod::elf;
namespace fs = std::filesystem;
using wheelmod::test::ldd;
using wheelmod::test::ldd_lines;
using wheelmod::test::needed_of;
using wheelmod::test::parse_ldd;
using wheelmod::test::run_command;
using wheelmod::test::shell_quote;

namespace {

fs::path fixtures() { return fs::canonical(WHEELMOD_LOADER_FIXTURES); }

const elf::LoaderEnvironment& host() {
  static const elf::LoaderEnvironment environment = elf::host_environment();
  return environment;
}

elf::CheckResult check(const fs::path& file, const elf::LoaderEnvironment& environment = host()) {
  elf::Loader loader(environment);
  auto result = loader.check(file);
  REQUIRE(result.has_value());
  return std::move(*result);
}

// ld.so run directly in trace mode (what ldd does), with options ldd lacks.
// (`ld.so --list` would stop at the first missing library.)
std::vector<wheelmod::test::LddLine> ld_so_list(const std::string& options, const fs::path& file) {
  return parse_ldd(run_command("env -u LD_LIBRARY_PATH LD_TRACE_LOADED_OBJECTS=1 " +
                               shell_quote(host().interpreter) + " " + options + " " +
                               shell_quote(file.string()) + " 2>&1"));
}

}  // namespace

TEST_CASE("every fixture file resolves exactly as ldd lists it", "[elf][loader][ldd]") {
  elf::Loader loader(host());
  const auto results = loader.check_tree(fixtures());
  REQUIRE(results.size() >= 30);
  std::size_t programs = 0;
  for (const auto& result : results) {
    CAPTURE(result.file);
    REQUIRE(result.error.empty());
    REQUIRE_FALSE(result.objects.empty());
    if (!result.objects.front().needed.empty()) ++programs;
    CHECK(ldd_lines(result) == ldd(result.file));
  }
  CHECK(programs >= 30);  // everything but the -nostdlib 32-bit library needs something
}

TEST_CASE("RPATH reaches a dependency's dependency, RUNPATH does not", "[elf][loader][ldd]") {
  const auto bin = fixtures() / "chain/bin";
  const auto rpath = check(bin / "exe_rpath");
  CHECK(needed_of(rpath, "/exe_rpath", "liba.so").found_by == elf::FoundBy::rpath);
  const auto& libb = needed_of(rpath, "/liba.so", "libb.so");
  CHECK(libb.status == elf::NeededStatus::found);
  CHECK(libb.found_by == elf::FoundBy::rpath);
  CHECK(libb.path == (bin / "../libb/libb.so").string());
  CHECK_FALSE(elf::has_failures(rpath));

  const auto runpath = check(bin / "exe_runpath");
  CHECK(needed_of(runpath, "/exe_runpath", "liba.so").found_by == elf::FoundBy::runpath);
  CHECK(needed_of(runpath, "/liba.so", "libb.so").status == elf::NeededStatus::missing);
  CHECK(elf::has_failures(runpath));

  // The library alone (as if dlopen()ed): it has no search path of its own.
  const auto alone = check(fixtures() / "chain/liba/liba.so");
  CHECK(needed_of(alone, "/liba.so", "libb.so").status == elf::NeededStatus::missing);
}

TEST_CASE("a RUNPATH object in an RPATH chain", "[elf][loader][ldd]") {
  const auto result = check(fixtures() / "mixed/bin/exe_mixed");
  CHECK(needed_of(result, "/libr.so", "libx.so").status == elf::NeededStatus::missing);
  const auto& libx = needed_of(result, "/libq.so", "libx.so");
  CHECK(libx.found_by == elf::FoundBy::rpath);
  CHECK(libx.path.ends_with("/mixed/bin/../libx/libx.so"));
}

TEST_CASE("already loaded: breadth-first order and SONAMEs", "[elf][loader][ldd]") {
  const auto result = check(fixtures() / "loaded/bin/exe_loaded");
  CHECK(needed_of(result, "/libuser.so", "libsat.so.1").found_by == elf::FoundBy::already_loaded);
  const auto& by_soname = needed_of(result, "/libuser2.so", "libsoname.so.3");
  CHECK(by_soname.found_by == elf::FoundBy::already_loaded);
  CHECK(by_soname.path.ends_with("/loaded/bin/../lib/libsoreal.so"));
  CHECK_FALSE(elf::has_failures(result));
  // Alone, libuser2 finds no file called libsoname.so.3.
  const auto alone = check(fixtures() / "loaded/lib/libuser2.so");
  CHECK(needed_of(alone, "/libuser2.so", "libsoname.so.3").status == elf::NeededStatus::missing);
}

TEST_CASE("missing, driver and system libraries", "[elf][loader][ldd]") {
  const auto program = fixtures() / "missing/bin/exe_missing";
  const auto result = check(program);
  CHECK(needed_of(result, "/exe_missing", "libgone.so").status == elf::NeededStatus::missing);
  CHECK(needed_of(result, "/exe_missing", "libcuda.so.1").status == elf::NeededStatus::driver);
  const auto& libz = needed_of(result, "/exe_missing", "libz.so.1");
  CHECK(libz.found_by == elf::FoundBy::cache);
  CHECK(result.objects[libz.object].placement == elf::Placement::system);
  CHECK(elf::has_failures(result));

  // Without the cache (ld.so --inhibit-cache) the system directories find it.
  auto no_cache = host();
  no_cache.cache.reset();
  const auto searched = check(program, no_cache);
  CHECK(needed_of(searched, "/exe_missing", "libz.so.1").found_by == elf::FoundBy::default_dirs);
  CHECK(ldd_lines(searched) == ld_so_list("--inhibit-cache", program));
}

TEST_CASE("LD_LIBRARY_PATH when asked for, between RPATH and RUNPATH", "[elf][loader][ldd]") {
  const auto program = fixtures() / "chain/bin/exe_runpath";
  const auto libb_dir = (fixtures() / "chain/libb").string();
  auto environment = host();
  environment.ld_library_path = {libb_dir};
  const auto result = check(program, environment);
  CHECK(needed_of(result, "/liba.so", "libb.so").found_by == elf::FoundBy::ld_library_path);
  CHECK(ldd_lines(result) == ld_so_list("--library-path " + shell_quote(libb_dir), program));
}

TEST_CASE("symlinks: $ORIGIN as opened, one file under two names", "[elf][loader][ldd]") {
  const auto result = check(fixtures() / "links/bin/exe_links");
  const auto& dep = needed_of(result, "/libsym.so", "libsdep.so");
  CHECK(dep.path.ends_with("/links/bin/../view/dep/libsdep.so"));
  const auto& alias = needed_of(result, "/exe_links", "libalias2.so");
  CHECK(alias.found_by == elf::FoundBy::rpath);
  CHECK(alias.object == needed_of(result, "/exe_links", "libalias1.so").object);
}

TEST_CASE("$LIB, ${PLATFORM} and $ORIGIN in DT_NEEDED, where this host puts them",
          "[elf][loader][ldd]") {
  REQUIRE(host().platform.has_value());
  const wheelmod::test::TempDir dir("loader-dst");
  const auto build = fixtures() / "dst/build";
  const auto place = [&](const char* file, const fs::path& where) {
    fs::create_directories(dir.path() / where);
    fs::copy_file(build / file, dir.path() / where / file);
  };
  place("exe_dst", "bin");
  place("libdstlib.so", host().lib);
  place("libdstplat.so", fs::path("plat") / *host().platform);
  place("libinorigin.so", "sub");
  const auto program = fs::canonical(dir.path() / "bin/exe_dst");
  const auto result = check(program);
  CHECK_FALSE(elf::has_failures(result));
  const auto& by_origin = needed_of(result, "/exe_dst", "$ORIGIN/../sub/libinorigin.so");
  CHECK(by_origin.found_by == elf::FoundBy::path);
  CHECK(by_origin.path == program.parent_path().string() + "/../sub/libinorigin.so");
  CHECK(ldd_lines(result) == ldd(program));
  int status = -1;
  run_command(shell_quote(program.string()), &status);
  CHECK(status == 0);  // and the program really starts
}

TEST_CASE("hwcap subdirectories come before the directory", "[elf][loader][ldd]") {
  const auto result = check(fixtures() / "hwcaps/bin/exe_hw");
  const auto& hw = needed_of(result, "/exe_hw", "libhw.so");
  const auto& hwcaps = host().glibc_hwcaps;
  const bool v2 = std::find(hwcaps.begin(), hwcaps.end(), "x86-64-v2") != hwcaps.end();
  CHECK(hw.path.ends_with(v2 ? "/lib/glibc-hwcaps/x86-64-v2/libhw.so" : "/lib/libhw.so"));
  const auto& legacy = host().legacy_hwcap_subdirs;
  const bool x86_64 = std::find(legacy.begin(), legacy.end(), "x86_64") != legacy.end();
  CHECK(needed_of(result, "/exe_hw", "libleg.so").status ==
        (x86_64 ? elf::NeededStatus::found : elf::NeededStatus::missing));
}

TEST_CASE("a library of the wrong ELF class is passed over", "[elf][loader][ldd]") {
  if (WHEELMOD_LOADER_HAVE_M32 == 0) {
    WARN("the compiler cannot emit 32-bit objects: wrong-class case not built");
    return;
  }
  const auto bin = fixtures() / "wrongclass/bin";
  const auto both = check(bin / "exe_wc");
  const auto& found = needed_of(both, "/exe_wc", "libwc.so");
  CHECK(found.path == (bin / "../lib64/libwc.so").string());
  CHECK(found.skipped == std::vector<std::string>{(bin / "../lib32/libwc.so").string()});
  const auto only32 = check(bin / "exe_wc32only");
  CHECK(needed_of(only32, "/exe_wc32only", "libwc.so").status == elf::NeededStatus::missing);
}

TEST_CASE("a started program's $ORIGIN is its real directory (ldd differs)", "[elf][loader][ldd]") {
  const wheelmod::test::TempDir dir("loader-link");
  const auto target = fixtures() / "chain/bin/exe_rpath";
  const auto link = fs::canonical(dir.path()) / "app";
  fs::create_symlink(target, link);
  const auto result = check(link);
  CHECK_FALSE(elf::has_failures(result));
  int status = -1;
  run_command("env -u LD_LIBRARY_PATH " + shell_quote(link.string()) + " 2>&1", &status);
  CHECK(status == 0);  // the kernel agrees: the program starts
  // ldd runs ld.so on the name as given, so its $ORIGIN is the link's directory.
  const auto listed = ldd(link);
  REQUIRE_FALSE(listed.empty());
  CHECK(listed.front() == wheelmod::test::LddLine{"liba.so", "not found"});
}

TEST_CASE("placement: the allowed roots, the system, the rest", "[elf][loader]") {
  auto environment = host();
  environment.allowed_roots = {fixtures() / "chain"};
  const auto result = check(fixtures() / "chain/bin/exe_rpath", environment);
  const auto& liba = needed_of(result, "/exe_rpath", "liba.so");
  CHECK(result.objects[liba.object].placement == elf::Placement::allowed);
  const auto& libc = needed_of(result, "/libb.so", "libc.so.6");
  CHECK(result.objects[libc.object].placement == elf::Placement::system);
  CHECK(elf::from_outside(result).empty());

  environment.allowed_roots = {fixtures() / "chain/liba"};
  const auto narrower = check(fixtures() / "chain/bin/exe_rpath", environment);
  const auto outside = elf::from_outside(narrower);
  REQUIRE(outside.size() == 1);
  CHECK(outside.front()->path.ends_with("/chain/bin/../libb/libb.so"));
}

TEST_CASE("checking files that are not programs or libraries", "[elf][loader]") {
  const wheelmod::test::TempDir dir("loader-files");
  dir.write("script.py", "print('hello')\n");
  elf::Loader loader(host());
  CHECK_FALSE(loader.check(dir.path() / "script.py").has_value());
  CHECK_THROWS_AS(loader.check(dir.path() / "absent.so"), wheelmod::IoError);
  fs::create_directories(dir.path() / "tree/sub");
  dir.write("tree/readme.txt", "text\n");
  fs::copy_file(fixtures() / "chain/libb/libb.so", dir.path() / "tree/sub/libb.so");
  fs::create_symlink("sub/libb.so", dir.path() / "tree/libb-link.so");
  fs::create_symlink("..", dir.path() / "tree/sub/loop");
  fs::create_symlink("gone.so", dir.path() / "tree/dangling.so");
  const auto results = loader.check_tree(dir.path() / "tree");
  REQUIRE(results.size() == 1);  // the library once, under its real name
  CHECK(results.front().file == dir.path() / "tree/sub/libb.so");
  CHECK_FALSE(elf::has_failures(results.front()));
}
