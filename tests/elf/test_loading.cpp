// Edited files, loaded for real: ld.so(8) must find the dependency through
// the new search path (no LD_LIBRARY_PATH), and must not find it before the
// edit or once it is moved away.
#include <elf.h>

#include <cstring>
#include <string>

#include <catch2/catch.hpp>

#include "elf/search_path_editor.hpp"
#include "elf_edit_support.hpp"
#include "elf_test_support.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using wheelmod::elf::EditMethod;
using wheelmod::elf::SearchPathTag;
using wheelmod::test::run;
using wheelmod::test::RunResult;

using wheelmod::test::edit;
using wheelmod::test::probe;
using wheelmod::test::require_loads;

void require_dependency_missing(const RunResult& result) {
  INFO(result.output);
  CHECK(result.exit_code != 0);
  CHECK(result.output.find("libwmfixdep.so: cannot open shared object file") != std::string::npos);
}

// Turns the program's DT_DEBUG into a DT_RUNPATH naming the DT_RPATH string,
// which is what GNU ld before 2.26(ish) wrote for --enable-new-dtags: both
// tags, one string.
void give_both_tags(const fs::path& program) {
  std::string bytes = wheelmod::test::read_file(program);
  Elf64_Ehdr header{};
  std::memcpy(&header, bytes.data(), sizeof header);
  std::size_t dynamic = 0;
  for (std::size_t i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment{};
    std::memcpy(&segment, bytes.data() + header.e_phoff + i * sizeof segment, sizeof segment);
    if (segment.p_type == PT_DYNAMIC) dynamic = segment.p_offset;
  }
  REQUIRE(dynamic != 0);
  std::uint64_t rpath = 0;
  std::size_t debug = 0;
  for (std::size_t at = dynamic;; at += sizeof(Elf64_Dyn)) {
    Elf64_Dyn entry{};
    std::memcpy(&entry, bytes.data() + at, sizeof entry);
    if (entry.d_tag == DT_NULL) break;
    if (entry.d_tag == DT_RPATH) rpath = entry.d_un.d_val;
    if (entry.d_tag == DT_DEBUG) debug = at;
  }
  REQUIRE(debug != 0);
  const Elf64_Dyn runpath{DT_RUNPATH, {rpath}};
  std::memcpy(bytes.data() + debug, &runpath, sizeof runpath);
  wheelmod::test::write_file(program, bytes);
  fs::permissions(program, fs::perms(0755));
  const auto reference = wheelmod::test::readelf(program);
  REQUIRE(reference.rpath_entries == 1);
  REQUIRE(reference.runpath == reference.rpath);
}

}  // namespace

TEST_CASE("a library edited in place loads its dependency from the new path", "[elf][load]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  const auto library =
      wheelmod::test::copy_into(WHEELMOD_ELF_RUNPATH_LIBRARY, temp.path() / "lib", "libuser.so");
  wheelmod::test::copy_into(WHEELMOD_ELF_DEP, temp.path() / "lib" / "deps", "libwmfixdep.so");

  require_dependency_missing(probe(library, "wm_fixture_value"));  // the old RUNPATH
  CHECK(edit(library, "$ORIGIN/deps", SearchPathTag::runpath) == EditMethod::in_place);
  require_loads(probe(library, "wm_fixture_value"), "4243\n");
  fs::remove(temp.path() / "lib" / "deps" / "libwmfixdep.so");
  require_dependency_missing(probe(library, "wm_fixture_value"));

  // Again, as DT_RPATH, into the bytes of "$ORIGIN/deps" (no longer: the
  // freed NUL bytes after it are not counted as room).
  wheelmod::test::copy_into(WHEELMOD_ELF_DEP, temp.path() / "o", "libwmfixdep.so");
  CHECK(edit(library, "$ORIGIN/../o", SearchPathTag::rpath) == EditMethod::in_place);
  require_loads(probe(library, "wm_fixture_value"), "4243\n");
}

TEST_CASE("a library grown by appending loads its dependency from the new path", "[elf][load]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  const auto library =
      wheelmod::test::copy_into(WHEELMOD_ELF_RPATH_LIBRARY, temp.path() / "lib", "libuser.so");
  const std::string far = "software/CUDA/12.6.0/a-directory-name-long-enough-to-need-growing/lib64";
  wheelmod::test::copy_into(WHEELMOD_ELF_DEP, temp.path() / far, "libwmfixdep.so");

  require_dependency_missing(probe(library, "wm_fixture_value"));
  CHECK(edit(library, "/nonexistent/first:$ORIGIN/../" + far, SearchPathTag::rpath) ==
        EditMethod::appended);
  require_loads(probe(library, "wm_fixture_value"), "4243\n");
  fs::remove_all(temp.path() / "software");
  require_dependency_missing(probe(library, "wm_fixture_value"));
}

TEST_CASE("libraries whose strings share the old path's bytes still load", "[elf][load]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  wheelmod::test::copy_into(WHEELMOD_ELF_DEP, temp.path() / "lib" / "deps", "libwmfixdep.so");
  SECTION("SONAME in the RUNPATH string") {
    const auto library =
        wheelmod::test::copy_into(WHEELMOD_ELF_TAIL_LIBRARY, temp.path() / "lib", "libwmtail.so");
    require_dependency_missing(probe(library, "wm_fixture_value"));
    CHECK(edit(library, "$ORIGIN/deps", SearchPathTag::runpath) == EditMethod::appended);
    require_loads(probe(library, "wm_fixture_value"), "4243\n");
  }
  SECTION("symbol name in the RUNPATH string") {
    const auto library = wheelmod::test::copy_into(WHEELMOD_ELF_SYMBOL_TAIL_LIBRARY,
                                                   temp.path() / "lib", "libwmsymtail.so");
    require_dependency_missing(probe(library, "wm_tail_symbol"));
    CHECK(edit(library, "$ORIGIN/deps", SearchPathTag::runpath) == EditMethod::appended);
    require_loads(probe(library, "wm_tail_symbol"), "4244\n");
  }
}

TEST_CASE("an edited program runs with its dependency at the new path", "[elf][load]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  const auto program =
      wheelmod::test::copy_into(WHEELMOD_ELF_PROGRAM, temp.path() / "bin", "program");
  wheelmod::test::copy_into(WHEELMOD_ELF_DEP, temp.path() / "lib", "libwmfixdep.so");

  SECTION("DT_RPATH, in place") {
    const auto before = run({program.string()});
    CHECK(before.exit_code == 127);  // ld.so: error while loading shared libraries
    require_dependency_missing(before);
    CHECK(edit(program, "$ORIGIN/../lib", SearchPathTag::rpath) == EditMethod::in_place);
  }
  SECTION("DT_RPATH and DT_RUNPATH, in place: one RUNPATH is left") {
    give_both_tags(program);
    require_dependency_missing(run({program.string()}));
    CHECK(edit(program, "$ORIGIN/../lib", SearchPathTag::runpath) == EditMethod::in_place);
    const auto reference = wheelmod::test::readelf(program);
    CHECK(reference.rpath_entries == 0);
    CHECK(reference.runpath == "$ORIGIN/../lib");
  }
  SECTION("DT_RPATH and DT_RUNPATH, through patchelf") {
    give_both_tags(program);
    const std::string longer = "$ORIGIN/../lib:" + std::string(WHEELMOD_ELF_PROGRAM_ORIGINAL);
    CHECK(edit(program, longer, SearchPathTag::rpath) == EditMethod::patchelf);
    const auto reference = wheelmod::test::readelf(program);
    CHECK(reference.runpath_entries == 0);
    CHECK(reference.rpath_entries == 1);
    CHECK(reference.rpath == longer);
  }
  require_loads(run({program.string()}), "4242\n");
  fs::remove(temp.path() / "lib" / "libwmfixdep.so");
  require_dependency_missing(run({program.string()}));
}
