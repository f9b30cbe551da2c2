// A search path that outgrows its string in a shared library: the grown
// .dynstr is appended in a new PT_LOAD (EditMethod::appended). What readelf
// reads afterwards (and that it has nothing to warn about), that ld.so
// loads the library and its dependency through the new path, that strip
// still understands the file, and where the grower refuses and patchelf
// takes over.
#include <elf.h>

#include <cstring>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <sys/stat.h>

#include "crafted_elf.hpp"
#include "elf/elf_file.hpp"
#include "elf/search_path_editor.hpp"
#include "elf_edit_support.hpp"
#include "elf_test_support.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using wheelmod::elf::EditMethod;
using wheelmod::elf::SearchPathTag;
using wheelmod::test::readelf;
using wheelmod::test::run;
using wheelmod::test::RunResult;

using wheelmod::test::edit;
using wheelmod::test::probe;
using wheelmod::test::require_loads;

// Entries that ld.so tries and fails before the last one; at least `size`
// bytes in all.
std::string long_path(std::size_t size, const std::string& last) {
  std::string value;
  for (int i = 0; value.size() + last.size() < size; ++i)
    value += "/nonexistent/wheelmod-grow/a-directory-that-is-not-there-" + std::to_string(i) + ":";
  return value + last;
}

// readelf's complaints go to stderr; a coherent file gives none.
std::string readelf_warnings(const fs::path& file) {
  const auto result =
      run({"/bin/sh", "-c",
           std::string(WHEELMOD_READELF) + " -W -h -l -S -d -V --dyn-syms \"$0\" 2>&1 >/dev/null",
           file.string()});
  CHECK(result.exit_code == 0);
  return result.output;
}

struct Segment {
  std::string type, flags;
  std::uint64_t offset = 0, vaddr = 0, filesz = 0, memsz = 0, align = 0;
};

std::vector<Segment> segments(const fs::path& file) {
  const auto result = run({WHEELMOD_READELF, "-W", "-l", file.string()});
  REQUIRE(result.exit_code == 0);
  std::vector<Segment> out;
  std::istringstream lines(result.output);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::vector<std::string> w{std::istream_iterator<std::string>(words), {}};
    if (w.size() < 8 || w[1].rfind("0x", 0) != 0) continue;
    Segment s;
    s.type = w[0];
    s.offset = std::stoull(w[1], nullptr, 16);
    s.vaddr = std::stoull(w[2], nullptr, 16);
    s.filesz = std::stoull(w[4], nullptr, 16);
    s.memsz = std::stoull(w[5], nullptr, 16);
    for (std::size_t i = 6; i + 1 < w.size(); ++i) s.flags += w[i];
    s.align = std::stoull(w.back(), nullptr, 16);
    out.push_back(s);
  }
  return out;
}

std::vector<Segment> loads(const fs::path& file) {
  std::vector<Segment> out;
  for (const auto& s : segments(file))
    if (s.type == "LOAD") out.push_back(s);
  return out;
}

// .dynstr as its section header and as DT_STRTAB / DT_STRSZ say.
struct Dynstr {
  std::uint64_t section_address = 0, section_offset = 0, section_size = 0;
  std::uint64_t strtab = 0, strsz = 0;
};

Dynstr dynstr(const fs::path& file) {
  const auto result = run({WHEELMOD_READELF, "-W", "-S", "-d", file.string()});
  REQUIRE(result.exit_code == 0);
  Dynstr out;
  std::istringstream lines(result.output);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line.substr(line.find(']') + 1));
    std::vector<std::string> w{std::istream_iterator<std::string>(words), {}};
    if (line.find("] .dynstr ") != std::string::npos && w.size() >= 5) {
      out.section_address = std::stoull(w[2], nullptr, 16);
      out.section_offset = std::stoull(w[3], nullptr, 16);
      out.section_size = std::stoull(w[4], nullptr, 16);
    }
    const auto value = [&line] { return line.substr(line.find(')') + 1); };
    if (line.find("(STRTAB)") != std::string::npos) out.strtab = std::stoull(value(), nullptr, 16);
    if (line.find("(STRSZ)") != std::string::npos) out.strsz = std::stoull(value(), nullptr, 10);
  }
  return out;
}

// The grown file's new last PT_LOAD maps the new .dynstr, congruent with
// its offset, and every file offset it could be moved to (by strip) maps
// above the old segments; the section header agrees.
void check_layout(const fs::path& file, const std::vector<Segment>& loads_before,
                  std::uint64_t size_before) {
  const auto after = loads(file);
  REQUIRE(after.size() == loads_before.size() + 1);
  const auto& added = after.back();
  CHECK(added.flags == "R");
  CHECK(added.offset % 4096 == 0);
  CHECK(added.offset >= size_before);
  CHECK(added.filesz == added.memsz);
  CHECK(added.vaddr - added.offset >= loads_before.back().vaddr + loads_before.back().memsz);
  CHECK((added.vaddr - added.offset) % added.align == 0);
  CHECK(fs::file_size(file) == added.offset + added.filesz);
  const auto table = dynstr(file);
  CHECK(table.strtab > added.vaddr);
  CHECK(table.strtab + table.strsz == added.vaddr + added.filesz);
  CHECK(table.section_address == table.strtab);
  CHECK(table.section_offset == table.strtab - added.vaddr + added.offset);
  CHECK(table.section_size == table.strsz);
}

std::string patch_dynamic_size(std::string bytes, std::uint64_t size) {
  Elf64_Ehdr header{};
  std::memcpy(&header, bytes.data(), sizeof header);
  for (std::size_t i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment{};
    const std::size_t at = header.e_phoff + i * sizeof segment;
    std::memcpy(&segment, bytes.data() + at, sizeof segment);
    if (segment.p_type != PT_DYNAMIC) continue;
    segment.p_filesz = segment.p_memsz = size;
    std::memcpy(bytes.data() + at, &segment, sizeof segment);
  }
  return bytes;
}

}  // namespace

TEST_CASE("a longer RPATH is appended in a new segment and loads", "[elf][grow][load]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  const auto library =
      wheelmod::test::copy_into(WHEELMOD_ELF_RPATH_LIBRARY, temp.path() / "lib", "libuser.so");
  wheelmod::test::copy_into(WHEELMOD_ELF_DEP, temp.path() / "lib" / "deps", "libwmfixdep.so");
  for (const std::size_t size : {std::size_t{120}, std::size_t{3000}, std::size_t{9000}}) {
    CAPTURE(size);
    const auto loads_before = loads(library);
    const auto size_before = fs::file_size(library);
    const auto value = long_path(size, "$ORIGIN/deps");
    CHECK(edit(library, value, SearchPathTag::rpath, true) == EditMethod::appended);
    CHECK(fs::file_size(library) == size_before);
    CHECK(edit(library, value, SearchPathTag::rpath) == EditMethod::appended);

    const auto reference = readelf(library);
    CHECK(reference.rpath == value);
    CHECK(reference.rpath_entries == 1);
    CHECK(reference.runpath_entries == 0);
    CHECK(reference.soname == "libwmfix_rpath.so.1");
    CHECK(reference.needed == std::vector<std::string>{"libwmfixdep.so"});
    CHECK(readelf_warnings(library).empty());
    check_layout(library, loads_before, size_before);
    // Each round grows the grown file again.
    require_loads(probe(library, "wm_fixture_value"), "4243\n");
  }
  CHECK(wheelmod::test::names_in(temp.path() / "lib") ==
        std::vector<std::string>{"deps", "libuser.so"});
  fs::remove(temp.path() / "lib" / "deps" / "libwmfixdep.so");
  CHECK(probe(library, "wm_fixture_value").exit_code != 0);
}

TEST_CASE("an unmapped (staged) library grows in place, same inode, and loads",
          "[elf][grow][load]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  const auto library =
      wheelmod::test::copy_into(WHEELMOD_ELF_RPATH_LIBRARY, temp.path() / "lib", "libuser.so");
  wheelmod::test::copy_into(WHEELMOD_ELF_DEP, temp.path() / "lib" / "deps", "libwmfixdep.so");
  const auto loads_before = loads(library);
  const auto size_before = fs::file_size(library);
  struct stat before {};
  REQUIRE(::stat(library.c_str(), &before) == 0);
  const auto value = long_path(3000, "$ORIGIN/deps");
  wheelmod::elf::EditOptions options;
  options.patchelf = WHEELMOD_PATCHELF;
  options.unmapped = true;
  CHECK(wheelmod::elf::set_search_path(library, value, SearchPathTag::rpath, options).method ==
        EditMethod::appended);
  struct stat after {};
  REQUIRE(::stat(library.c_str(), &after) == 0);
  CHECK(after.st_ino == before.st_ino);  // edited where it is: no copy, no rename
  CHECK(readelf(library).rpath == value);
  CHECK(readelf_warnings(library).empty());
  check_layout(library, loads_before, size_before);
  require_loads(probe(library, "wm_fixture_value"), "4243\n");
  CHECK(wheelmod::test::names_in(temp.path() / "lib") ==
        std::vector<std::string>{"deps", "libuser.so"});
}

TEST_CASE("a library with 2 MiB segment alignment keeps it when grown", "[elf][grow][load]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  const auto library =
      wheelmod::test::copy_into(WHEELMOD_ELF_ALIGN_LIBRARY, temp.path() / "lib", "libalign.so");
  wheelmod::test::copy_into(WHEELMOD_ELF_DEP, temp.path() / "lib" / "deps", "libwmfixdep.so");
  const auto loads_before = loads(library);
  REQUIRE(loads_before.back().align == 0x200000);
  const auto size_before = fs::file_size(library);
  CHECK(edit(library, long_path(4200, "$ORIGIN/deps"), SearchPathTag::rpath) ==
        EditMethod::appended);
  check_layout(library, loads_before, size_before);
  CHECK(loads(library).back().align == 0x200000);
  CHECK(readelf_warnings(library).empty());
  require_loads(probe(library, "wm_fixture_value"), "4243\n");
}

TEST_CASE("RUNPATH becomes a grown RPATH, and a library without one gets it", "[elf][grow][load]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  wheelmod::test::copy_into(WHEELMOD_ELF_DEP, temp.path() / "lib" / "deps", "libwmfixdep.so");
  const auto value = long_path(700, "$ORIGIN/deps");
  SECTION("RUNPATH -> RPATH") {
    const auto library =
        wheelmod::test::copy_into(WHEELMOD_ELF_RUNPATH_LIBRARY, temp.path() / "lib", "l.so");
    CHECK(edit(library, value, SearchPathTag::rpath) == EditMethod::appended);
    const auto reference = readelf(library);
    CHECK(reference.rpath == value);
    CHECK(reference.runpath_entries == 0);
    CHECK(reference.soname == "libwmfix_runpath.so");
    CHECK(readelf_warnings(library).empty());
    require_loads(probe(library, "wm_fixture_value"), "4243\n");
  }
  SECTION("none -> RUNPATH, in a spare DT_NULL slot") {
    const auto library =
        wheelmod::test::copy_into(WHEELMOD_ELF_NORPATH_LIBRARY, temp.path() / "lib", "l.so");
    CHECK(probe(library, "wm_fixture_value").exit_code != 0);
    CHECK(edit(library, value, SearchPathTag::runpath) == EditMethod::appended);
    const auto reference = readelf(library);
    CHECK(reference.runpath == value);
    CHECK(reference.rpath_entries == 0);
    CHECK(reference.soname == "libwmfix_norpath.so");
    CHECK(reference.needed == std::vector<std::string>{"libwmfixdep.so"});
    CHECK(readelf_warnings(library).empty());
    require_loads(probe(library, "wm_fixture_value"), "4243\n");
  }
}

TEST_CASE("symbol names and version records keep their strings after growth", "[elf][grow][load]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  wheelmod::test::copy_into(WHEELMOD_ELF_DEP, temp.path() / "lib" / "deps", "libwmfixdep.so");
  const auto library = wheelmod::test::copy_into(WHEELMOD_ELF_SYMBOL_TAIL_LIBRARY,
                                                 temp.path() / "lib", "libwmsymtail.so");
  const auto symbols = [&library] {
    return run({WHEELMOD_READELF, "-W", "--dyn-syms", "-V", library.string()}).output;
  };
  const auto before = symbols();
  CHECK(before.find(" wm_tail_symbol\n") != std::string::npos);
  CHECK(edit(library, long_path(5000, "$ORIGIN/deps"), SearchPathTag::runpath) ==
        EditMethod::appended);
  // Same names at the same string indices; only the section's offset and
  // address lines of the version sections could differ, and they do not.
  CHECK(symbols() == before);
  CHECK(readelf_warnings(library).empty());
  require_loads(probe(library, "wm_tail_symbol"), "4244\n");
}

TEST_CASE("strip and objcopy still understand a grown library", "[elf][grow][load]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  wheelmod::test::copy_into(WHEELMOD_ELF_DEP, temp.path() / "lib" / "deps", "libwmfixdep.so");
  const auto library =
      wheelmod::test::copy_into(WHEELMOD_ELF_RPATH_LIBRARY, temp.path() / "lib", "libuser.so");
  const auto value = long_path(2000, "$ORIGIN/deps");
  REQUIRE(edit(library, value, SearchPathTag::rpath) == EditMethod::appended);
  for (const std::string option : {"--strip-debug", "--strip-all"}) {
    CAPTURE(option);
    const auto stripped = temp.path() / "lib" / "libstripped.so";
    const auto result = run({WHEELMOD_OBJCOPY, option, library.string(), stripped.string()});
    // objcopy moves the program header table down to the other segments'
    // end and says so ("section .dynstr lma ... adjusted"): p_paddr, which
    // nothing reads in a shared library, is left behind.
    INFO(result.output);
    CHECK(result.exit_code == 0);
    CHECK(readelf(stripped).rpath == value);
    CHECK(readelf_warnings(stripped).empty());
    require_loads(probe(stripped, "wm_fixture_value"), "4243\n");
  }
}

TEST_CASE("programs and layouts the grower refuses go through patchelf", "[elf][grow][load]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  SECTION("a program (PT_INTERP)") {
    const auto program =
        wheelmod::test::copy_into(WHEELMOD_ELF_PROGRAM, temp.path() / "bin", "program");
    wheelmod::test::copy_into(WHEELMOD_ELF_DEP, temp.path() / "lib", "libwmfixdep.so");
    const auto value = long_path(500, "$ORIGIN/../lib");
    CHECK(edit(program, value, SearchPathTag::rpath) == EditMethod::patchelf);
    CHECK(readelf(program).rpath == value);
    require_loads(run({program.string()}), "4242\n");
  }
  SECTION("no search path and no spare DT_NULL slot") {
    const auto library = temp.path() / "lib" / "l.so";
    fs::create_directories(library.parent_path());
    const auto original = wheelmod::test::read_file(WHEELMOD_ELF_NORPATH_LIBRARY);
    // PT_DYNAMIC shrunk to the used entries and the DT_NULL: readelf -d
    // counts the entries in its "contains N entries" line.
    const auto listing = run({WHEELMOD_READELF, "-d", WHEELMOD_ELF_NORPATH_LIBRARY}).output;
    const auto at = listing.find(" contains ");
    REQUIRE(at != std::string::npos);
    const auto used = std::stoull(listing.substr(at + 10));
    wheelmod::test::write_file(library, patch_dynamic_size(original, used * sizeof(Elf64_Dyn)));
    wheelmod::test::copy_into(WHEELMOD_ELF_DEP, temp.path() / "lib" / "deps", "libwmfixdep.so");
    CHECK(edit(library, "$ORIGIN/deps", SearchPathTag::runpath) == EditMethod::patchelf);
    CHECK(readelf(library).runpath == "$ORIGIN/deps");
    require_loads(probe(library, "wm_fixture_value"), "4243\n");
  }
}

TEST_CASE("crafted files of both classes and byte orders grow, or refuse", "[elf][grow][crafted]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  for (const bool elf64 : {true, false}) {
    for (const bool little_endian : {true, false}) {
      CAPTURE(elf64, little_endian);
      auto spec = wheelmod::test::crafted_library(elf64, little_endian, "libcrafted.so");
      spec.runpath = "/opt/old";
      const auto file = temp.path() / "crafted.so";
      wheelmod::test::write_file(file, wheelmod::test::craft_elf(spec).bytes);
      const auto value = long_path(6000, "/opt/new");
      CHECK(edit(file, value, SearchPathTag::rpath) == EditMethod::appended);
      auto reference = readelf(file);
      CHECK(reference.rpath == value);
      CHECK(reference.runpath_entries == 0);
      CHECK(reference.needed == spec.needed);
      CHECK(reference.soname == "libcrafted.so");
      CHECK(readelf_warnings(file).empty());
      const auto info = wheelmod::elf::read_dynamic(file);
      REQUIRE(info);
      CHECK(info->rpath == value);
      const auto grown = loads(file);
      REQUIRE(grown.size() == 2);
      CHECK(grown[1].offset % 4096 == 0);
      CHECK(grown[1].vaddr % 4096 == grown[1].offset % 4096);
      // Again, over the grown file.
      CHECK(edit(file, value + ":/opt/more", SearchPathTag::runpath) == EditMethod::appended);
      reference = readelf(file);
      CHECK(reference.runpath == value + ":/opt/more");
      CHECK(reference.rpath_entries == 0);
      CHECK(reference.needed == spec.needed);
      CHECK(loads(file).size() == 3);
      CHECK(readelf_warnings(file).empty());

      // Refused: a program, a program with PT_INTERP, and no entry to reuse
      // (crafted arrays have no spare DT_NULL). A dry run says so.
      spec.runpath.reset();
      wheelmod::test::write_file(file, wheelmod::test::craft_elf(spec).bytes);
      CHECK(edit(file, value, SearchPathTag::rpath, true) == EditMethod::patchelf);
      spec.runpath = "/opt/old";
      spec.type = ET_EXEC;
      wheelmod::test::write_file(file, wheelmod::test::craft_elf(spec).bytes);
      CHECK(edit(file, value, SearchPathTag::rpath, true) == EditMethod::patchelf);
      spec.type = ET_DYN;
      spec.interpreter = "/lib/ld.so.1";
      wheelmod::test::write_file(file, wheelmod::test::craft_elf(spec).bytes);
      CHECK(edit(file, value, SearchPathTag::rpath, true) == EditMethod::patchelf);
    }
  }
}

#ifdef WHEELMOD_ELF_M32_LIBRARY
TEST_CASE("a 32-bit library built by gcc -m32 grows", "[elf][grow][m32]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  const auto library = wheelmod::test::copy_into(WHEELMOD_ELF_M32_LIBRARY, temp.path(), "l.so");
  const auto loads_before = loads(library);
  const auto size_before = fs::file_size(library);
  const auto value = long_path(3000, "/opt/m32/lib");
  CHECK(edit(library, value, SearchPathTag::rpath) == EditMethod::appended);
  const auto reference = readelf(library);
  CHECK(reference.elf_class == "ELF32");
  CHECK(reference.rpath == value);
  CHECK(readelf_warnings(library).empty());
  check_layout(library, loads_before, size_before);
}
#endif
