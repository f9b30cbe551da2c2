// read_dynamic against readelf (binutils) on libraries and programs built
// here, on the system's own, and on hand-made files of every class and byte
// order; is_elf and split_search_path as tables.
#include <elf.h>

#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "crafted_elf.hpp"
#include "elf/elf_file.hpp"
#include "elf_test_support.hpp"
#include "temp_dir.hpp"

namespace {

using wheelmod::elf::DynamicInfo;
using wheelmod::elf::ElfClass;
using wheelmod::elf::read_dynamic;

void require_agrees_with_readelf(const std::filesystem::path& file) {
  CAPTURE(file);
  const auto info = read_dynamic(file);
  REQUIRE(info.has_value());
  const auto reference = wheelmod::test::readelf(file);
  CHECK((info->elf_class == ElfClass::elf64 ? "ELF64" : "ELF32") == reference.elf_class);
  CHECK((info->little_endian ? "little endian" : "big endian") == reference.data);
  CHECK((info->type == ET_DYN ? "DYN" : info->type == ET_EXEC ? "EXEC" : "?") == reference.type);
  CHECK(info->interpreter == reference.interpreter);
  CHECK(info->soname == reference.soname);
  CHECK(info->needed == reference.needed);
  CHECK(info->rpath == reference.rpath);
  CHECK(info->runpath == reference.runpath);
}

}  // namespace

TEST_CASE("read_dynamic reads the fixtures as built", "[elf][read]") {
  const auto rpath = read_dynamic(WHEELMOD_ELF_RPATH_LIBRARY);
  REQUIRE(rpath);
  CHECK(rpath->elf_class == ElfClass::elf64);
  CHECK(rpath->machine == EM_X86_64);
  CHECK(rpath->type == ET_DYN);
  CHECK(rpath->little_endian);
  CHECK(rpath->soname == "libwmfix_rpath.so.1");
  CHECK(rpath->needed == std::vector<std::string>{"libwmfixdep.so"});
  CHECK(rpath->rpath == WHEELMOD_ELF_RPATH_ORIGINAL);
  CHECK_FALSE(rpath->runpath);
  CHECK_FALSE(rpath->interpreter);

  const auto runpath = read_dynamic(WHEELMOD_ELF_RUNPATH_LIBRARY);
  REQUIRE(runpath);
  CHECK(runpath->runpath == WHEELMOD_ELF_RUNPATH_ORIGINAL);
  CHECK_FALSE(runpath->rpath);

  // The SONAME here is stored inside the RUNPATH string; both read whole.
  const auto tail = read_dynamic(WHEELMOD_ELF_TAIL_LIBRARY);
  REQUIRE(tail);
  CHECK(tail->soname == "libwmtail.so");
  CHECK(tail->runpath == WHEELMOD_ELF_TAIL_ORIGINAL);

  const auto program = read_dynamic(WHEELMOD_ELF_PROGRAM);
  REQUIRE(program);
  CHECK(program->needed == std::vector<std::string>{"libwmfixdep.so", "libc.so.6"});
  CHECK(program->rpath == WHEELMOD_ELF_PROGRAM_ORIGINAL);
  REQUIRE(program->interpreter);
  CHECK(program->interpreter->find("ld-linux") != std::string::npos);
}

TEST_CASE("read_dynamic agrees with readelf on built and system files", "[elf][read][readelf]") {
  std::vector<std::filesystem::path> files{WHEELMOD_ELF_DEP,
                                           WHEELMOD_ELF_RPATH_LIBRARY,
                                           WHEELMOD_ELF_RUNPATH_LIBRARY,
                                           WHEELMOD_ELF_NORPATH_LIBRARY,
                                           WHEELMOD_ELF_TAIL_LIBRARY,
                                           WHEELMOD_ELF_SYMBOL_TAIL_LIBRARY,
                                           WHEELMOD_ELF_PROGRAM,
                                           WHEELMOD_ELF_PROBE,
                                           WHEELMOD_ELF_STATIC,
                                           WHEELMOD_READELF,
                                           WHEELMOD_PATCHELF};
#ifdef WHEELMOD_ELF_M32_LIBRARY
  files.emplace_back(WHEELMOD_ELF_M32_LIBRARY);
#endif
  // Whatever of these the system has: big C and C++ libraries with symbol
  // versions, many DT_NEEDED entries, the loader itself.
  for (const char* system :
       {"/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2",
        "/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/usr/lib/x86_64-linux-gnu/libelf.so.1",
        "/usr/lib/x86_64-linux-gnu/libcurl.so.4", "/usr/bin/cmake"})
    if (std::filesystem::exists(system)) files.emplace_back(std::filesystem::canonical(system));
  REQUIRE(files.size() >= 12);
  for (const auto& file : files) require_agrees_with_readelf(file);
}

TEST_CASE("read_dynamic reads ELF32 and ELF64 of both byte orders", "[elf][read][crafted]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  struct Case {
    bool elf64;
    bool little_endian;
    std::uint16_t machine;
  };
  for (const auto& c : {Case{true, true, EM_X86_64}, Case{true, false, EM_PPC64},
                        Case{false, true, EM_386}, Case{false, false, EM_PPC}}) {
    CAPTURE(c.elf64, c.little_endian);
    wheelmod::test::CraftSpec spec;
    spec.elf64 = c.elf64;
    spec.little_endian = c.little_endian;
    spec.machine = c.machine;
    spec.type = ET_EXEC;
    spec.interpreter = "/lib/ld-test.so.1";
    spec.needed = {"libone.so.1", "libtwo.so.2", "libthree.so"};
    spec.soname = "libcrafted.so.7";
    spec.rpath = "$ORIGIN/../lib:/opt/crafted";
    const auto file = temp.path() / "crafted";
    wheelmod::test::write_file(file, wheelmod::test::craft_elf(spec).bytes);

    const auto info = read_dynamic(file);
    REQUIRE(info);
    CHECK(info->elf_class == (c.elf64 ? ElfClass::elf64 : ElfClass::elf32));
    CHECK(info->little_endian == c.little_endian);
    CHECK(info->machine == c.machine);
    CHECK(info->type == ET_EXEC);
    CHECK(info->interpreter == "/lib/ld-test.so.1");
    CHECK(info->needed == spec.needed);
    CHECK(info->soname == "libcrafted.so.7");
    CHECK(info->rpath == "$ORIGIN/../lib:/opt/crafted");
    CHECK_FALSE(info->runpath);
    require_agrees_with_readelf(file);
  }
}

TEST_CASE("read_dynamic: not ELF, static, missing", "[elf][read]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  temp.write("script.sh", "#!/bin/sh\necho hello\n");
  CHECK_FALSE(read_dynamic(temp.path() / "script.sh"));

  const auto static_program = read_dynamic(WHEELMOD_ELF_STATIC);
  REQUIRE(static_program);
  CHECK(static_program->type == ET_EXEC);
  CHECK(static_program->needed.empty());
  CHECK_FALSE(static_program->soname);
  CHECK_FALSE(static_program->rpath);
  CHECK_FALSE(static_program->runpath);

  const auto missing = temp.path() / "missing.so";
  try {
    (void)read_dynamic(missing);
    FAIL("no error for a missing file");
  } catch (const wheelmod::IoError& error) {
    CHECK(error.subject() == missing.string());
    CHECK(error.cause().find("No such file") != std::string::npos);
  }
}

TEST_CASE("is_elf looks at the magic only", "[elf][read]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  temp.write("empty", "");
  temp.write("short",
             "\x7f"
             "EL");
  temp.write("magic-only",
             "\x7f"
             "ELF");
  temp.write("text", "ELF\x7f is not it");
  std::filesystem::create_directory(temp.path() / "directory");
  struct Case {
    std::filesystem::path file;
    bool expected;
  };
  for (const auto& c :
       {Case{WHEELMOD_ELF_RPATH_LIBRARY, true}, Case{WHEELMOD_ELF_STATIC, true},
        Case{temp.path() / "magic-only", true}, Case{temp.path() / "empty", false},
        Case{temp.path() / "short", false}, Case{temp.path() / "text", false},
        Case{temp.path() / "directory", false}, Case{temp.path() / "missing", false}}) {
    CAPTURE(c.file);
    CHECK(wheelmod::elf::is_elf(c.file) == c.expected);
  }
}

TEST_CASE("is_text_by_name passes over sources, bytecode and headers only", "[elf][read]") {
  for (const char* name : {"__init__.py", "x.cpython-311.pyc", "stub.pyi", "ATen.h", "core.hpp",
                           "kernel.cuh", "LICENSE.txt", "METADATA.json", "py.typed"})
    CHECK(wheelmod::elf::is_text_by_name(name));
  // Anything a loader may map is still opened: shared objects, programs without a suffix,
  // unknown suffixes, dot files.
  for (const char* name :
       {"libtorch_cpu.so", "libcudart.so.12", "_C.cpython-311-x86_64-linux-gnu.so", "ptxas",
        "blob.bin", ".hidden", "libfoo.so.1.py2", "Py"})
    CHECK_FALSE(wheelmod::elf::is_text_by_name(name));
}

TEST_CASE("split_search_path keeps empty elements", "[elf][split]") {
  using V = std::vector<std::string>;
  struct Case {
    std::string value;
    V expected;
  };
  for (const auto& c :
       {Case{"", V{}}, Case{"/a", V{"/a"}}, Case{"/a:/b", V{"/a", "/b"}},
        Case{"$ORIGIN/../lib:/opt/x", V{"$ORIGIN/../lib", "/opt/x"}}, Case{":/a", V{"", "/a"}},
        Case{"/a:", V{"/a", ""}}, Case{"/a::/b", V{"/a", "", "/b"}}, Case{":", V{"", ""}}}) {
    CAPTURE(c.value);
    CHECK(wheelmod::elf::split_search_path(c.value) == c.expected);
  }
}
