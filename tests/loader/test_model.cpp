// The search order of ld.so(8) on an in-memory file system: each rule of
// the model alone, where the real-file tests (test_against_ldd.cpp) see
// them only together.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "elf/loader.hpp"
#include "elf/loader_model.hpp"

namespace elf = wheelmod::elf;

namespace {

constexpr std::uint16_t k_x86_64 = 62;
constexpr std::uint16_t k_aarch64 = 183;

struct Object {
  std::vector<std::string> needed;
  std::optional<std::string> soname;
  std::optional<std::string> rpath;
  std::optional<std::string> runpath;
  std::optional<std::string> interpreter;
  elf::ElfClass elf_class = elf::ElfClass::elf64;
  std::uint16_t machine = k_x86_64;
  std::uint16_t type = 3;  // ET_DYN
};

// Paths to probes; a symlink is a second path with the same FileId.
class MemoryFiles final : public elf::ObjectSource {
 public:
  MemoryFiles() {
    Object interpreter;
    interpreter.soname = "ld-linux-x86-64.so.2";
    add("/lib64/ld-linux-x86-64.so.2", interpreter);
  }

  void add(const std::string& path, const Object& object) {
    elf::Probe probe;
    probe.kind = elf::ProbeKind::object;
    probe.info.needed = object.needed;
    probe.info.soname = object.soname;
    probe.info.rpath = object.rpath;
    probe.info.runpath = object.runpath;
    probe.info.interpreter = object.interpreter;
    probe.info.elf_class = object.elf_class;
    probe.info.machine = object.machine;
    probe.info.type = object.type;
    probe.id = {1, ++m_next_inode};
    probe.real_path = path;
    m_files[path] = probe;
  }
  void add_text(const std::string& path) {
    elf::Probe probe;
    probe.kind = elf::ProbeKind::not_elf;
    probe.problem = "invalid ELF header";
    probe.id = {1, ++m_next_inode};
    m_files[path] = probe;
  }
  void add_symlink(const std::string& path, const std::string& target) {
    m_files[path] = m_files.at(target);
  }
  // Like a file system without directory symlinks: "/a/../b" is "/b".
  const elf::Probe& probe(const std::string& path) override {
    const auto found = m_files.find(std::filesystem::path(path).lexically_normal().string());
    return found == m_files.end() ? m_missing : found->second;
  }

 private:
  std::map<std::string, elf::Probe> m_files;
  elf::Probe m_missing;
  std::uint64_t m_next_inode = 0;
};

elf::LoaderEnvironment plain_environment() {
  elf::LoaderEnvironment environment;
  environment.system_dirs = {"/lib", "/usr/lib"};
  environment.interpreter = "/lib64/ld-linux-x86-64.so.2";
  environment.working_directory = "/work";
  return environment;
}

Object program(std::vector<std::string> needed) {
  Object object;
  object.needed = std::move(needed);
  object.interpreter = "/lib64/ld-linux-x86-64.so.2";
  return object;
}

Object library(std::vector<std::string> needed = {}) {
  Object object;
  object.needed = std::move(needed);
  return object;
}

const elf::NeededResult& request(const elf::CheckResult& result, const std::string& by,
                                 const std::string& name) {
  for (const auto& object : result.objects)
    if (object.path == by)
      for (const auto& needed : object.needed)
        if (needed.name == name) return needed;
  FAIL("no request for " << name << " by " << by);
  throw;
}

}  // namespace

TEST_CASE("DT_RPATH is inherited down the chain, DT_RUNPATH is not", "[elf][loader][model]") {
  MemoryFiles files;
  files.add("/p/liba/liba.so", library({"libb.so"}));
  files.add("/p/libb/libb.so", library());
  auto exe = program({"liba.so"});
  exe.rpath = "/p/liba:/p/libb";
  files.add("/p/bin/with_rpath", exe);
  exe.rpath.reset();
  exe.runpath = "/p/liba:/p/libb";
  files.add("/p/bin/with_runpath", exe);
  const auto environment = plain_environment();

  const auto rpath = elf::resolve_dependencies("/p/bin/with_rpath", environment, files);
  CHECK(request(rpath, "/p/bin/with_rpath", "liba.so").found_by == elf::FoundBy::rpath);
  const auto& libb = request(rpath, "/p/liba/liba.so", "libb.so");
  CHECK(libb.status == elf::NeededStatus::found);
  CHECK(libb.found_by == elf::FoundBy::rpath);
  CHECK(libb.path == "/p/libb/libb.so");
  CHECK_FALSE(elf::has_failures(rpath));

  const auto runpath = elf::resolve_dependencies("/p/bin/with_runpath", environment, files);
  CHECK(request(runpath, "/p/bin/with_runpath", "liba.so").found_by == elf::FoundBy::runpath);
  CHECK(request(runpath, "/p/liba/liba.so", "libb.so").status == elf::NeededStatus::missing);
  CHECK(elf::has_failures(runpath));
}

TEST_CASE("an object with DT_RUNPATH has no DT_RPATH and cuts its loaders' off",
          "[elf][loader][model]") {
  MemoryFiles files;
  auto both = library({"libx.so", "liby.so"});
  both.rpath = "/p/x";
  both.runpath = "/p/y";
  files.add("/p/both/libboth.so", both);
  files.add("/p/x/libx.so", library());
  files.add("/p/y/liby.so", library());
  files.add("/p/z/libz.so", library());
  auto child = library({"libz.so"});
  files.add("/p/y/libchild.so", child);
  auto exe = program({"libboth.so", "libchild.so"});
  exe.rpath = "/p/both:/p/y:/p/z";
  files.add("/p/bin/app", exe);

  const auto result = elf::resolve_dependencies("/p/bin/app", plain_environment(), files);
  // libboth's own DT_RPATH is ignored, and so is the program's for its requests.
  CHECK(request(result, "/p/both/libboth.so", "libx.so").status == elf::NeededStatus::missing);
  CHECK(request(result, "/p/both/libboth.so", "liby.so").found_by == elf::FoundBy::runpath);
  // libchild (no paths) still inherits the program's DT_RPATH.
  const auto& libz = request(result, "/p/y/libchild.so", "libz.so");
  CHECK(libz.found_by == elf::FoundBy::rpath);
  CHECK(libz.path == "/p/z/libz.so");
}

TEST_CASE("search order: RPATH, LD_LIBRARY_PATH, RUNPATH, cache, system directories",
          "[elf][loader][model]") {
  MemoryFiles files;
  for (const char* dir : {"/r", "/l", "/u", "/c", "/lib"})
    files.add(std::string(dir) + "/libq.so", library());
  auto environment = plain_environment();
  elf::LdSoCache cache;
  cache.entries.push_back({0x0303, "libq.so", "/c/libq.so", 0, std::nullopt});
  cache.entries.push_back({0x0303, "libgone.so", "/c/libgone.so", 0, std::nullopt});
  environment.cache = cache;
  environment.ld_library_path = {"/l"};

  const auto found_by = [&](const std::optional<std::string>& rpath,
                            const std::optional<std::string>& runpath) {
    auto exe = program({"libq.so"});
    exe.rpath = rpath;
    exe.runpath = runpath;
    files.add("/bin/q", exe);
    const auto result = elf::resolve_dependencies("/bin/q", environment, files);
    const auto& needed = request(result, "/bin/q", "libq.so");
    return std::make_pair(needed.found_by, needed.path);
  };
  CHECK(found_by("/r", std::nullopt) ==
        std::make_pair(elf::FoundBy::rpath, std::string("/r/libq.so")));
  CHECK(found_by(std::nullopt, "/u") ==
        std::make_pair(elf::FoundBy::ld_library_path, std::string("/l/libq.so")));
  environment.ld_library_path.clear();
  CHECK(found_by(std::nullopt, "/u") ==
        std::make_pair(elf::FoundBy::runpath, std::string("/u/libq.so")));
  CHECK(found_by(std::nullopt, std::nullopt) ==
        std::make_pair(elf::FoundBy::cache, std::string("/c/libq.so")));
  environment.cache.reset();
  CHECK(found_by(std::nullopt, std::nullopt) ==
        std::make_pair(elf::FoundBy::default_dirs, std::string("/lib/libq.so")));

  // A cache entry whose file is gone: ld.so goes on to the system directories.
  environment.cache = cache;
  files.add("/usr/lib/libgone.so", library());
  files.add("/bin/g", program({"libgone.so"}));
  const auto gone = elf::resolve_dependencies("/bin/g", environment, files);
  CHECK(request(gone, "/bin/g", "libgone.so").path == "/usr/lib/libgone.so");
}

TEST_CASE("a library already loaded satisfies its SONAME and its names, breadth first",
          "[elf][loader][model]") {
  MemoryFiles files;
  auto real = library();
  real.soname = "libsoname.so.3";
  files.add("/p/lib/libreal.so", real);
  files.add("/p/lib/libuser.so", library({"libsoname.so.3", "libreal.so"}));
  auto exe = program({"libuser.so", "libreal.so"});
  exe.runpath = "/p/lib";
  files.add("/p/bin/app", exe);

  const auto result = elf::resolve_dependencies("/p/bin/app", plain_environment(), files);
  // libuser's turn comes after both of the program's requests (breadth
  // first), so libreal.so is in by then, under its SONAME too.
  const auto& by_soname = request(result, "/p/lib/libuser.so", "libsoname.so.3");
  CHECK(by_soname.found_by == elf::FoundBy::already_loaded);
  CHECK(by_soname.path == "/p/lib/libreal.so");
  CHECK(request(result, "/p/lib/libuser.so", "libreal.so").found_by ==
        elf::FoundBy::already_loaded);
  REQUIRE(result.objects.size() == 3);  // app, libuser, libreal
  CHECK(result.objects[2].loader == std::optional<std::size_t>(0));
}

TEST_CASE("objects loaded before the root meet its requests before any search",
          "[elf][loader][model]") {
  // A torch extension without RPATH: libtorch_cpu.so is in the process already (import torch),
  // and ld.so matches it by SONAME before it would search the system directories, where a
  // distribution's libtorch lies.
  MemoryFiles files;
  auto wheel_torch = library({"libc10.so"});
  wheel_torch.soname = "libtorch_cpu.so";
  wheel_torch.runpath = "$ORIGIN";
  files.add("/sw/torch/lib/libtorch_cpu.so", wheel_torch);
  files.add("/sw/torch/lib/libc10.so", library());
  files.add("/usr/lib/libtorch_cpu.so", library({"libsystem_only.so"}));
  files.add("/usr/lib/libsystem_only.so", library());
  files.add("/p/ext/_ext.so", library({"libtorch_cpu.so", "libunrelated.so"}));
  files.add("/usr/lib/libunrelated.so", library());
  const std::vector<std::string> loaded = {"/sw/torch/lib/libtorch_cpu.so",
                                           "/sw/torch/lib/libc10.so"};

  const auto with = elf::resolve_dependencies("/p/ext/_ext.so", plain_environment(), files, loaded);
  const auto& torch = request(with, "/p/ext/_ext.so", "libtorch_cpu.so");
  CHECK(torch.found_by == elf::FoundBy::already_loaded);
  CHECK(torch.path == "/sw/torch/lib/libtorch_cpu.so");
  // What the loaded object needs resolves from it ($ORIGIN is its directory), and only objects
  // something requested are listed: libc10.so under torch, nothing from /usr/lib's libtorch.
  CHECK(request(with, "/sw/torch/lib/libtorch_cpu.so", "libc10.so").path ==
        "/sw/torch/lib/libc10.so");
  CHECK(request(with, "/p/ext/_ext.so", "libunrelated.so").found_by == elf::FoundBy::default_dirs);
  for (const auto& object : with.objects) CHECK(object.path != "/usr/lib/libsystem_only.so");

  // Without them, the search finds the system's libtorch.
  const auto without = elf::resolve_dependencies("/p/ext/_ext.so", plain_environment(), files);
  CHECK(request(without, "/p/ext/_ext.so", "libtorch_cpu.so").path == "/usr/lib/libtorch_cpu.so");
}

TEST_CASE("one file under two names is loaded once", "[elf][loader][model]") {
  MemoryFiles files;
  files.add("/p/lib/libone.so", library());
  files.add_symlink("/p/lib/libtwo.so", "/p/lib/libone.so");
  auto exe = program({"libone.so", "libtwo.so"});
  exe.rpath = "/p/lib";
  files.add("/p/bin/app", exe);
  const auto result = elf::resolve_dependencies("/p/bin/app", plain_environment(), files);
  const auto& two = request(result, "/p/bin/app", "libtwo.so");
  CHECK(two.found_by == elf::FoundBy::rpath);
  CHECK(two.path == "/p/lib/libtwo.so");
  CHECK(two.object == request(result, "/p/bin/app", "libone.so").object);
  CHECK(result.objects.size() == 2);
}

TEST_CASE("candidates of another class or machine are passed over", "[elf][loader][model]") {
  MemoryFiles files;
  auto lib32 = library();
  lib32.elf_class = elf::ElfClass::elf32;
  files.add("/a/libw.so", lib32);
  auto arm = library();
  arm.machine = k_aarch64;
  files.add("/b/libw.so", arm);
  files.add("/c/libw.so", library());
  auto exe = program({"libw.so"});
  exe.rpath = "/a:/b:/c";
  files.add("/bin/w", exe);
  exe.rpath = "/a:/b";
  files.add("/bin/w2", exe);

  const auto good = elf::resolve_dependencies("/bin/w", plain_environment(), files);
  const auto& found = request(good, "/bin/w", "libw.so");
  CHECK(found.path == "/c/libw.so");
  CHECK(found.skipped == std::vector<std::string>{"/a/libw.so", "/b/libw.so"});
  const auto bad = elf::resolve_dependencies("/bin/w2", plain_environment(), files);
  CHECK(request(bad, "/bin/w2", "libw.so").status == elf::NeededStatus::missing);
  CHECK(request(bad, "/bin/w2", "libw.so").skipped.size() == 2);
}

TEST_CASE("a candidate that is no loadable library ends the search", "[elf][loader][model]") {
  MemoryFiles files;
  files.add_text("/a/libt.so");  // e.g. a linker script
  files.add("/b/libt.so", library());
  auto executable = library();
  executable.type = 2;  // ET_EXEC
  files.add("/a/libexec.so", executable);
  files.add("/b/libexec.so", library());
  auto exe = program({"libt.so", "libexec.so"});
  exe.rpath = "/a:/b";
  files.add("/bin/t", exe);
  const auto result = elf::resolve_dependencies("/bin/t", plain_environment(), files);
  const auto& text = request(result, "/bin/t", "libt.so");
  CHECK(text.status == elf::NeededStatus::invalid);
  CHECK(text.problem == "/a/libt.so: invalid ELF header");
  CHECK(request(result, "/bin/t", "libexec.so").problem ==
        "/a/libexec.so: cannot dynamically load executable");
  CHECK(elf::has_failures(result));
}

TEST_CASE("$ORIGIN: a program's real directory, a library's directory as opened",
          "[elf][loader][model]") {
  MemoryFiles files;
  auto exe = program({"libo.so"});
  exe.rpath = "$ORIGIN/../lib";
  files.add("/real/bin/app", exe);
  files.add_symlink("/links/app", "/real/bin/app");
  files.add("/real/lib/libo.so", library());
  const auto started = elf::resolve_dependencies("/links/app", plain_environment(), files);
  CHECK(request(started, "/links/app", "libo.so").path == "/real/bin/../lib/libo.so");

  auto lib = library({"libdep.so"});
  lib.rpath = "$ORIGIN/dep";
  files.add("/real/lib/libsym.so", lib);
  files.add_symlink("/view/libsym.so", "/real/lib/libsym.so");
  files.add("/view/dep/libdep.so", library());
  const auto opened = elf::resolve_dependencies("/view/libsym.so", plain_environment(), files);
  CHECK(request(opened, "/view/libsym.so", "libdep.so").path == "/view/dep/libdep.so");
}

TEST_CASE("search-path entries: tokens, relative and empty entries, trailing slashes",
          "[elf][loader][model]") {
  MemoryFiles files;
  files.add("/work/rel/libr.so", library());
  files.add("/work/libe.so", library());
  files.add("/good/libp.so", library());
  auto exe = program({"libp.so", "libr.so", "libe.so"});
  exe.rpath = "/bad/$PLATFORM:/good//:rel:";
  files.add("/bin/e", exe);
  auto environment = plain_environment();  // no $PLATFORM: that entry is dropped
  const auto result = elf::resolve_dependencies("/bin/e", environment, files);
  CHECK(request(result, "/bin/e", "libp.so").path == "/good/libp.so");
  CHECK(request(result, "/bin/e", "libr.so").path == "rel/libr.so");  // as ld.so spells it
  CHECK(request(result, "/bin/e", "libe.so").path == "libe.so");      // "" is the current directory
}

TEST_CASE("each directory is tried with its hwcap subdirectories first", "[elf][loader][model]") {
  MemoryFiles files;
  files.add("/p/lib/libh.so", library());
  files.add("/p/lib/tls/libh.so", library());
  files.add("/p/lib/glibc-hwcaps/x86-64-v2/libh.so", library());
  files.add("/p/lib/glibc-hwcaps/x86-64-v4/libh.so", library());
  auto exe = program({"libh.so"});
  exe.runpath = "/p/lib";
  files.add("/bin/h", exe);
  auto environment = plain_environment();
  environment.glibc_hwcaps = {"x86-64-v3", "x86-64-v2"};  // v4 not supported here
  environment.legacy_hwcap_subdirs = {"tls"};
  const auto path = [&] {
    return request(elf::resolve_dependencies("/bin/h", environment, files), "/bin/h", "libh.so")
        .path;
  };
  CHECK(path() == "/p/lib/glibc-hwcaps/x86-64-v2/libh.so");
  environment.glibc_hwcaps.clear();
  CHECK(path() == "/p/lib/tls/libh.so");
  environment.legacy_hwcap_subdirs.clear();
  CHECK(path() == "/p/lib/libh.so");
}

TEST_CASE("the interpreter, drivers, and where libraries lie", "[elf][loader][model]") {
  MemoryFiles files;
  auto libc = library({"ld-linux-x86-64.so.2"});
  libc.soname = "libc.so.6";
  files.add("/lib/libc.so.6", libc);
  files.add("/prefix/lib/libmine.so", library({"libc.so.6"}));
  files.add("/opt/other/libother.so", library());
  auto exe = program({"libmine.so", "libother.so", "libcuda.so.1"});
  exe.rpath = "/prefix/lib:/opt/other";
  files.add("/prefix/bin/app", exe);
  auto environment = plain_environment();
  environment.allowed_roots = {"/prefix"};

  const auto result = elf::resolve_dependencies("/prefix/bin/app", environment, files);
  CHECK(request(result, "/prefix/bin/app", "libcuda.so.1").status == elf::NeededStatus::driver);
  const auto& rtld = request(result, "/lib/libc.so.6", "ld-linux-x86-64.so.2");
  CHECK(rtld.found_by == elf::FoundBy::already_loaded);
  CHECK(rtld.path == "/lib64/ld-linux-x86-64.so.2");
  CHECK_FALSE(elf::has_failures(result));  // a missing driver is no failure
  // Order: app, libmine, libother, libc, then the interpreter where first needed.
  REQUIRE(result.objects.size() == 5);
  CHECK(result.objects[4].path == "/lib64/ld-linux-x86-64.so.2");
  CHECK(result.objects[1].placement == elf::Placement::allowed);
  CHECK(result.objects[2].placement == elf::Placement::outside);
  CHECK(result.objects[3].placement == elf::Placement::system);
  CHECK(result.objects[4].placement == elf::Placement::system);
  const auto outside = elf::from_outside(result);
  REQUIRE(outside.size() == 1);
  CHECK(outside[0]->path == "/opt/other/libother.so");

  exe.interpreter = "/lib/ld-gone.so";
  files.add("/prefix/bin/broken", exe);
  const auto broken = elf::resolve_dependencies("/prefix/bin/broken", environment, files);
  CHECK(broken.interpreter_missing);
  CHECK(elf::has_failures(broken));
}

TEST_CASE("a library as the root: its own RPATH heads the chain", "[elf][loader][model]") {
  MemoryFiles files;
  auto plugin = library({"libhelper.so"});
  plugin.rpath = "$ORIGIN/helpers";
  files.add("/p/plugins/libplugin.so", plugin);
  files.add("/p/plugins/helpers/libhelper.so", library({"libdeep.so"}));
  files.add("/p/plugins/helpers/libdeep.so", library());
  const auto result =
      elf::resolve_dependencies("/p/plugins/libplugin.so", plain_environment(), files);
  CHECK(request(result, "/p/plugins/helpers/libhelper.so", "libdeep.so").found_by ==
        elf::FoundBy::rpath);
  CHECK(result.interpreter == "/lib64/ld-linux-x86-64.so.2");
  CHECK_FALSE(result.interpreter_missing);
}
