// set_search_path on the fixtures and on hand-made files: which route an
// edit takes (in place / appended / patchelf / unchanged), which bytes
// change, what readelf sees afterwards, and the failures. Loading edited
// files is in test_loading.cpp; the appended layout in
// test_search_path_grow.cpp.
#include <elf.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include <catch2/catch.hpp>
#include <sys/stat.h>

#include "core/errors.hpp"
#include "crafted_elf.hpp"
#include "elf/elf_file.hpp"
#include "elf/search_path_editor.hpp"
#include "elf_test_support.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using wheelmod::elf::EditMethod;
using wheelmod::elf::SearchPathEdit;
using wheelmod::elf::SearchPathTag;
using wheelmod::test::read_file;
using wheelmod::test::readelf;

SearchPathEdit edit(const fs::path& file, const std::string& value, SearchPathTag tag,
                    bool dry_run = false, const std::string& patchelf = WHEELMOD_PATCHELF) {
  wheelmod::elf::EditOptions options;
  options.patchelf = patchelf;
  options.dry_run = dry_run;
  return wheelmod::elf::set_search_path(file, value, tag, options);
}

// Offsets where two equally long byte strings differ.
std::vector<std::size_t> differences(const std::string& a, const std::string& b) {
  REQUIRE(a.size() == b.size());
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) out.push_back(i);
  return out;
}

std::size_t unique_offset(const std::string& bytes, const std::string& text) {
  const auto at = bytes.find(text);
  REQUIRE(at != std::string::npos);
  REQUIRE(bytes.find(text, at + 1) == std::string::npos);
  return at;
}

ino_t inode(const fs::path& file) {
  struct stat status {};
  REQUIRE(::stat(file.c_str(), &status) == 0);
  return status.st_ino;
}

}  // namespace

TEST_CASE("a shorter RPATH is written in place over the old string", "[elf][edit]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  const auto file = wheelmod::test::copy_into(WHEELMOD_ELF_RPATH_LIBRARY, temp.path(), "lib.so");
  const std::string before = read_file(file);
  const ino_t inode_before = inode(file);

  const auto result = edit(file, "/short/lib", SearchPathTag::rpath);
  CHECK(result.method == EditMethod::in_place);
  CHECK(result.old_value == WHEELMOD_ELF_RPATH_ORIGINAL);
  CHECK(result.old_tag == SearchPathTag::rpath);
  CHECK(result.new_value == "/short/lib");
  CHECK(result.new_tag == SearchPathTag::rpath);

  const std::string after = read_file(file);
  CHECK(inode(file) == inode_before);
  // Only the string's own bytes change: the new text, then NULs up to the
  // old string's NUL.
  const std::string old_string = std::string(WHEELMOD_ELF_RPATH_ORIGINAL) + '\0';
  const auto at = unique_offset(before, old_string);
  for (const auto offset : differences(before, after)) {
    CHECK(offset >= at);
    CHECK(offset < at + old_string.size());
  }
  std::string expected = "/short/lib";
  expected.resize(old_string.size(), '\0');
  CHECK(after.substr(at, old_string.size()) == expected);

  const auto reference = readelf(file);
  CHECK(reference.rpath == "/short/lib");
  CHECK(reference.rpath_entries == 1);
  CHECK(reference.runpath_entries == 0);
  CHECK(reference.soname == "libwmfix_rpath.so.1");
  CHECK(reference.needed == std::vector<std::string>{"libwmfixdep.so"});
}

TEST_CASE("RUNPATH becomes RPATH in place, and back: the tag changes", "[elf][edit]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  const auto file = wheelmod::test::copy_into(WHEELMOD_ELF_RUNPATH_LIBRARY, temp.path(), "lib.so");
  const std::string original = read_file(file);

  auto result = edit(file, "$ORIGIN/deps", SearchPathTag::rpath);
  CHECK(result.method == EditMethod::in_place);
  CHECK(result.old_tag == SearchPathTag::runpath);
  CHECK(result.old_value == WHEELMOD_ELF_RUNPATH_ORIGINAL);
  auto reference = readelf(file);
  CHECK(reference.rpath == "$ORIGIN/deps");
  CHECK(reference.runpath_entries == 0);
  CHECK(reference.rpath_entries == 1);
  const std::string as_rpath = read_file(file);
  // Outside the string only the tag's low byte moved (29 -> 15).
  const auto at = unique_offset(original, std::string(WHEELMOD_ELF_RUNPATH_ORIGINAL) + '\0');
  int outside = 0;
  for (const auto offset : differences(original, as_rpath))
    if (offset < at || offset > at + std::strlen(WHEELMOD_ELF_RUNPATH_ORIGINAL)) {
      ++outside;
      CHECK(original[offset] == DT_RUNPATH);
      CHECK(as_rpath[offset] == DT_RPATH);
    }
  CHECK(outside == 1);

  result = edit(file, "$ORIGIN/deps", SearchPathTag::runpath);
  CHECK(result.method == EditMethod::in_place);
  CHECK(result.old_tag == SearchPathTag::rpath);
  reference = readelf(file);
  CHECK(reference.runpath == "$ORIGIN/deps");
  CHECK(reference.rpath_entries == 0);
  CHECK(differences(as_rpath, read_file(file)).size() == 1);
}

TEST_CASE("the same path under the same tag changes nothing", "[elf][edit]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  const auto file = wheelmod::test::copy_into(WHEELMOD_ELF_RPATH_LIBRARY, temp.path(), "lib.so");
  const auto time_before = fs::last_write_time(file);
  const auto result = edit(file, WHEELMOD_ELF_RPATH_ORIGINAL, SearchPathTag::rpath);
  CHECK(result.method == EditMethod::unchanged);
  CHECK(result.old_value == WHEELMOD_ELF_RPATH_ORIGINAL);
  CHECK(read_file(file) == read_file(WHEELMOD_ELF_RPATH_LIBRARY));
  CHECK(fs::last_write_time(file) == time_before);
}

TEST_CASE("a longer path is appended on a copy that replaces the file", "[elf][edit]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  const auto file = wheelmod::test::copy_into(WHEELMOD_ELF_RPATH_LIBRARY, temp.path(), "lib.so");
  fs::permissions(file, fs::perms(0751));
  const ino_t inode_before = inode(file);
  const std::string longer = std::string(WHEELMOD_ELF_RPATH_ORIGINAL) + ":/opt/another/long/dir";

  SECTION("as RPATH") {
    const auto result = edit(file, longer, SearchPathTag::rpath);
    CHECK(result.method == EditMethod::appended);
    const auto reference = readelf(file);
    CHECK(reference.rpath == longer);
    CHECK(reference.rpath_entries == 1);
    CHECK(reference.runpath_entries == 0);
  }
  SECTION("as RUNPATH") {
    const auto result = edit(file, longer, SearchPathTag::runpath);
    CHECK(result.method == EditMethod::appended);
    CHECK(result.old_tag == SearchPathTag::rpath);
    const auto reference = readelf(file);
    CHECK(reference.runpath == longer);
    CHECK(reference.rpath_entries == 0);
    CHECK(reference.runpath_entries == 1);
  }
  const auto reference = readelf(file);
  CHECK(reference.soname == "libwmfix_rpath.so.1");
  CHECK(reference.needed == std::vector<std::string>{"libwmfixdep.so"});
  CHECK(inode(file) != inode_before);  // renamed over, not rewritten
  CHECK((fs::status(file).permissions() & fs::perms::all) == fs::perms(0751));
  CHECK(wheelmod::test::names_in(temp.path()) == std::vector<std::string>{"lib.so"});
}

TEST_CASE("through a symbolic link, the file it names is edited", "[elf][edit]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  const auto file = wheelmod::test::copy_into(WHEELMOD_ELF_RPATH_LIBRARY, temp.path(), "lib.so.1");
  const auto link = temp.path() / "lib.so";
  fs::create_symlink("lib.so.1", link);
  const std::string longer = std::string(WHEELMOD_ELF_RPATH_ORIGINAL) + ":/opt/more";
  CHECK(edit(link, longer, SearchPathTag::rpath).method == EditMethod::appended);
  CHECK(fs::is_symlink(link));
  CHECK(readelf(file).rpath == longer);
  CHECK(edit(link, "/short", SearchPathTag::rpath).method == EditMethod::in_place);
  CHECK(fs::is_symlink(link));
  CHECK(readelf(file).rpath == "/short");
  CHECK(wheelmod::test::names_in(temp.path()) == std::vector<std::string>{"lib.so", "lib.so.1"});
}

TEST_CASE("a library without a search path gets one in a spare DT_NULL slot", "[elf][edit]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  const auto file = wheelmod::test::copy_into(WHEELMOD_ELF_NORPATH_LIBRARY, temp.path(), "lib.so");
  const auto result = edit(file, "$ORIGIN", SearchPathTag::runpath);
  CHECK(result.method == EditMethod::appended);
  CHECK_FALSE(result.old_value);
  CHECK_FALSE(result.old_tag);
  const auto reference = readelf(file);
  CHECK(reference.runpath == "$ORIGIN");
  CHECK(reference.soname == "libwmfix_norpath.so");
}

TEST_CASE("strings sharing the old string's bytes force a new string", "[elf][edit]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  SECTION("the SONAME is the RUNPATH's tail") {
    const auto file = wheelmod::test::copy_into(WHEELMOD_ELF_TAIL_LIBRARY, temp.path(), "lib.so");
    const auto original = read_file(file);
    CHECK(edit(file, "/x", SearchPathTag::runpath, true).method == EditMethod::appended);
    CHECK(read_file(file) == original);
    CHECK(edit(file, "/x", SearchPathTag::runpath).method == EditMethod::appended);
    const auto reference = readelf(file);
    CHECK(reference.runpath == "/x");
    CHECK(reference.soname == "libwmtail.so");
  }
  SECTION("a symbol name is the RUNPATH's tail") {
    const auto file =
        wheelmod::test::copy_into(WHEELMOD_ELF_SYMBOL_TAIL_LIBRARY, temp.path(), "lib.so");
    CHECK(edit(file, "/x", SearchPathTag::runpath).method == EditMethod::appended);
    CHECK(readelf(file).runpath == "/x");
    const auto symbols = wheelmod::test::run({WHEELMOD_READELF, "-W", "--dyn-syms", file.string()});
    CHECK(symbols.output.find(" wm_tail_symbol\n") != std::string::npos);
  }
}

TEST_CASE("a dry run computes the edit and writes nothing", "[elf][edit]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  const auto file = wheelmod::test::copy_into(WHEELMOD_ELF_RUNPATH_LIBRARY, temp.path(), "lib.so");
  const std::string original = read_file(file);
  struct Case {
    std::string value;
    SearchPathTag tag;
    EditMethod expected;
  };
  for (const auto& c :
       {Case{"/short", SearchPathTag::runpath, EditMethod::in_place},
        Case{WHEELMOD_ELF_RUNPATH_ORIGINAL, SearchPathTag::rpath, EditMethod::in_place},
        Case{WHEELMOD_ELF_RUNPATH_ORIGINAL, SearchPathTag::runpath, EditMethod::unchanged},
        Case{std::string(300, 'x'), SearchPathTag::runpath, EditMethod::appended}}) {
    CAPTURE(c.value);
    const auto result = edit(file, c.value, c.tag, true, "/nonexistent/patchelf");
    CHECK(result.method == c.expected);
    CHECK(result.old_value == WHEELMOD_ELF_RUNPATH_ORIGINAL);
    CHECK(read_file(file) == original);
    CHECK(wheelmod::test::names_in(temp.path()) == std::vector<std::string>{"lib.so"});
  }
}

TEST_CASE("both DT_RPATH and DT_RUNPATH: one is left", "[elf][edit][crafted]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  for (const bool elf64 : {true, false}) {
    for (const bool little_endian : {true, false}) {
      CAPTURE(elf64, little_endian);
      auto spec = wheelmod::test::crafted_library(elf64, little_endian, "libboth.so");
      spec.rpath = "/opt/rpath/entry/lib";
      spec.runpath = "/opt/runpath/entry/lib";
      const auto crafted = wheelmod::test::craft_elf(spec);
      const auto file = temp.path() / "both.so";
      wheelmod::test::write_file(file, crafted.bytes);

      const auto result = edit(file, "/new/lib", SearchPathTag::rpath);
      CHECK(result.method == EditMethod::in_place);
      CHECK(result.old_tag == SearchPathTag::runpath);  // the one ld.so uses
      CHECK(result.old_value == "/opt/runpath/entry/lib");
      const auto reference = readelf(file);
      CHECK(reference.rpath == "/new/lib");
      CHECK(reference.rpath_entries == 1);
      CHECK(reference.runpath_entries == 0);
      CHECK(reference.needed == spec.needed);
      CHECK(reference.soname == "libboth.so");
      const auto info = wheelmod::elf::read_dynamic(file);
      REQUIRE(info);
      CHECK(info->rpath == "/new/lib");
      CHECK_FALSE(info->runpath);
      CHECK(read_file(file).size() == crafted.bytes.size());

      // A second edit of the now single entry: RPATH -> RUNPATH.
      CHECK(edit(file, "/n", SearchPathTag::runpath).method == EditMethod::in_place);
      CHECK(readelf(file).runpath == "/n");
      CHECK(readelf(file).rpath_entries == 0);
    }
  }
}

TEST_CASE("patchelf missing or failing leaves the file as it was", "[elf][edit][patchelf]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  const auto directory = temp.path() / "bin";
  // A program: a library would grow without patchelf.
  const auto file = wheelmod::test::copy_into(WHEELMOD_ELF_PROGRAM, directory, "program");
  const std::string original = read_file(file);
  const std::string longer(200, 'y');

  SECTION("missing") {
    for (const std::string program : {"/nonexistent/patchelf", "wheelmod-no-such-patchelf"}) {
      try {
        (void)edit(file, longer, SearchPathTag::rpath, false, program);
        FAIL("no error");
      } catch (const wheelmod::IoError& error) {
        CHECK(error.subject() == file.string());
        CHECK(error.cause().find("needs patchelf") != std::string::npos);
        CHECK(error.hint() == "apt-get install patchelf");
      }
    }
  }
  SECTION("failing, with its stderr in the error") {
    temp.write("fake-patchelf", "#!/bin/sh\necho \"fake: cannot patch $*\" >&2\nexit 3\n");
    fs::permissions(temp.path() / "fake-patchelf", fs::perms(0755));
    try {
      (void)edit(file, longer, SearchPathTag::rpath, false,
                 (temp.path() / "fake-patchelf").string());
      FAIL("no error");
    } catch (const wheelmod::IoError& error) {
      CHECK(error.subject() == file.string());
      CHECK(error.cause().find("exit status 3") != std::string::npos);
      REQUIRE(error.details().size() == 1);
      CHECK(error.details()[0].find("fake: cannot patch --set-rpath " + longer +
                                    " --force-rpath") == 0);
    }
  }
  SECTION("succeeding without doing it: the read-back catches it") {
    temp.write("lazy-patchelf", "#!/bin/sh\nexit 0\n");
    fs::permissions(temp.path() / "lazy-patchelf", fs::perms(0755));
    try {
      (void)edit(file, longer, SearchPathTag::rpath, false,
                 (temp.path() / "lazy-patchelf").string());
      FAIL("no error");
    } catch (const wheelmod::IoError& error) {
      CHECK(error.cause().find("does not read back") != std::string::npos);
    }
  }
  CHECK(read_file(file) == original);
  CHECK(wheelmod::test::names_in(directory) == std::vector<std::string>{"program"});
}

TEST_CASE("what cannot be edited is an error naming the file", "[elf][edit]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  temp.write("text", "not an ELF file at all");
  const auto static_copy = wheelmod::test::copy_into(WHEELMOD_ELF_STATIC, temp.path(), "static");
  struct Case {
    fs::path file;
    const char* expected;
  };
  for (const auto& c : {Case{static_copy, "no dynamic section (PT_DYNAMIC)"},
                        Case{temp.path() / "text", "not an ELF file"},
                        Case{temp.path() / "missing", "cannot open"}}) {
    CAPTURE(c.file);
    try {
      (void)edit(c.file, "/x", SearchPathTag::runpath);
      FAIL("no error");
    } catch (const wheelmod::IoError& error) {
      CHECK(error.subject() == c.file.string());
      CHECK(error.cause().find(c.expected) != std::string::npos);
    }
  }
  const auto library = wheelmod::test::copy_into(WHEELMOD_ELF_RPATH_LIBRARY, temp.path(), "l.so");
  CHECK_THROWS_AS(edit(library, std::string("/a\0b", 4), SearchPathTag::rpath),
                  wheelmod::UsageError);

  if (::geteuid() != 0) {  // root may write anyway
    fs::permissions(library, fs::perms(0444));
    try {
      (void)edit(library, "/x", SearchPathTag::rpath);
      FAIL("no error");
    } catch (const wheelmod::IoError& error) {
      CHECK(error.cause().find("cannot open for writing") != std::string::npos);
      CHECK(error.hint().find("chmod u+w") != std::string::npos);
    }
  }
}
