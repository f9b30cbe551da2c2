// Broken ELF files: each defect is an IoError that names the file and the
// structure at fault, from the reader and the editor alike; and a small
// fuzz (truncations, flipped bytes in the headers, .dynsym/.dynstr and the
// dynamic array of a real library) that must never crash — the dev build
// runs it under ASan/UBSan.
#include <elf.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <random>
#include <string>

#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "crafted_elf.hpp"
#include "elf/elf_file.hpp"
#include "elf/search_path_editor.hpp"
#include "elf_test_support.hpp"
#include "temp_dir.hpp"

namespace {

using wheelmod::test::CraftedElf;

void put_le(std::string& bytes, std::size_t offset, std::uint64_t value, std::size_t size) {
  for (std::size_t i = 0; i < size; ++i)
    bytes[offset + i] = static_cast<char>((value >> (8 * i)) & 0xffU);
}

// Field offsets in the crafted ELF64 little-endian file.
std::size_t program_field(const CraftedElf& elf, std::size_t index, std::size_t field) {
  return elf.program_headers + index * 56 + field;
}
std::size_t dynamic_value(const CraftedElf& elf, std::size_t entry) {
  return elf.dynamic + entry * 16 + 8;
}
constexpr std::size_t k_p_offset = 8, k_p_filesz = 32;

// Entries: NEEDED, SONAME, RPATH, STRTAB, STRSZ, then DT_NULL.
CraftedElf sample() {
  wheelmod::test::CraftSpec spec;
  spec.interpreter = "/lib/ld-test.so.1";
  spec.needed = {"libneeded.so"};
  spec.soname = "libsample.so";
  spec.rpath = "/opt/sample/lib";
  return wheelmod::test::craft_elf(spec);
}

}  // namespace

TEST_CASE("broken files are IoErrors naming the file and the defect", "[elf][broken]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  struct Case {
    const char* name;
    std::function<void(std::string&, const CraftedElf&)> damage;
    const char* expected;
    bool editor_reads_it = true;  // the editor never reads PT_INTERP
  };
  const std::vector<Case> cases{
      {"truncated header", [](std::string& b, const CraftedElf&) { b.resize(30); },
       "not an ELF object"},
      {"unknown class", [](std::string& b, const CraftedElf&) { b[EI_CLASS] = 7; }, ""},
      {"program headers past the end",
       [](std::string& b, const CraftedElf&) { put_le(b, 32, b.size() - 8, 8); },
       "program headers at"},
      {"file cut inside PT_LOAD", [](std::string& b, const CraftedElf& e) { b.resize(e.dynamic); },
       "PT_LOAD segment"},
      {"PT_DYNAMIC past the end",
       [](std::string& b, const CraftedElf& e) {
         put_le(b, program_field(e, 1, k_p_offset), b.size() + 16, 8);
       },
       "PT_DYNAMIC segment"},
      {"PT_DYNAMIC offset not its address",
       [](std::string& b, const CraftedElf& e) {
         put_le(b, program_field(e, 1, k_p_offset), e.dynamic - 16, 8);
       },
       "is not where its address"},
      {"no DT_NULL",
       [](std::string& b, const CraftedElf& e) {
         put_le(b, program_field(e, 1, k_p_filesz), e.dynamic_entries * 16, 8);
       },
       "no DT_NULL terminator"},
      {"DT_STRTAB outside every PT_LOAD",
       [](std::string& b, const CraftedElf& e) { put_le(b, dynamic_value(e, 3), 0x10, 8); },
       "DT_STRTAB (0x10"},
      {"DT_STRSZ past the segment",
       [](std::string& b, const CraftedElf& e) { put_le(b, dynamic_value(e, 4), 1U << 30, 8); },
       "lies in no PT_LOAD"},
      {"no DT_STRTAB",
       [](std::string& b, const CraftedElf& e) { put_le(b, dynamic_value(e, 3) - 8, DT_DEBUG, 8); },
       "lacks DT_STRTAB"},
      {"string index past DT_STRSZ",
       [](std::string& b, const CraftedElf& e) { put_le(b, dynamic_value(e, 0), 4000, 8); },
       "outside DT_STRTAB"},
      {"last string without its NUL",
       [](std::string& b, const CraftedElf& e) {
         // Shrink DT_STRSZ by one: RPATH, the last string, loses its NUL.
         const auto size = static_cast<unsigned char>(b[dynamic_value(e, 4)]);
         put_le(b, dynamic_value(e, 4), size - 1U, 8);
       },
       "has no NUL"},
      {"PT_INTERP without its NUL",
       [](std::string& b, const CraftedElf& e) {
         put_le(b, program_field(e, 2, k_p_filesz), std::strlen("/lib/ld-test.so.1"), 8);
       },
       "PT_INTERP is not NUL-terminated", false},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    const auto elf = sample();
    std::string bytes = elf.bytes;
    c.damage(bytes, elf);
    const auto file = temp.path() / "broken.so";
    wheelmod::test::write_file(file, bytes);
    for (const bool edit : {false, true}) {
      CAPTURE(edit);
      if (edit && !c.editor_reads_it) continue;
      try {
        if (edit)
          (void)wheelmod::elf::set_search_path(file, "/x", wheelmod::elf::SearchPathTag::rpath);
        else
          (void)wheelmod::elf::read_dynamic(file);
        FAIL("no error");
      } catch (const wheelmod::IoError& error) {
        CAPTURE(error.render());
        CHECK(error.subject() == file.string());
        CHECK(error.cause().find("broken ELF file") == 0);
        CHECK(error.cause().find(c.expected) != std::string::npos);
      }
    }
    CHECK(wheelmod::test::read_file(file) == bytes);
  }
}

TEST_CASE("a separate debug-info file is not read as a library", "[elf][broken]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  const auto debug = temp.path() / "lib.so.debug";
  const auto made = wheelmod::test::run(
      {WHEELMOD_OBJCOPY, "--only-keep-debug", WHEELMOD_ELF_RPATH_LIBRARY, debug.string()});
  REQUIRE(made.exit_code == 0);
  try {
    (void)wheelmod::elf::read_dynamic(debug);
    FAIL("no error");
  } catch (const wheelmod::IoError& error) {
    CHECK(error.subject() == debug.string());
    CHECK(error.cause().find("separate debug-info file") != std::string::npos);
  }
}

TEST_CASE("fuzz: damaged copies of a real library never crash", "[elf][broken][fuzz]") {
  wheelmod::test::TempDir temp("wheelmod-elf");
  const std::string original = wheelmod::test::read_file(WHEELMOD_ELF_RPATH_LIBRARY);
  Elf64_Ehdr header{};
  std::memcpy(&header, original.data(), sizeof header);
  std::size_t dynamic_offset = 0, dynamic_size = 0, loads_end = 0;
  for (std::size_t i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr program{};
    std::memcpy(&program, original.data() + header.e_phoff + i * sizeof program, sizeof program);
    if (program.p_type == PT_DYNAMIC) {
      dynamic_offset = program.p_offset;
      dynamic_size = program.p_filesz;
    }
    if (program.p_type == PT_LOAD)
      loads_end = std::max<std::size_t>(loads_end, program.p_offset + program.p_filesz);
  }
  REQUIRE(dynamic_size > 0);

  const auto file = temp.path() / "fuzzed.so";
  enum class Outcome { not_elf, parsed, rejected };
  int edited = 0;
  // One outcome per damaged copy: a result or a wheelmod::Error; anything
  // else (another exception, a crash, a sanitizer report) fails the test.
  const auto probe = [&](const std::string& bytes, bool write) {
    wheelmod::test::write_file(file, bytes);
    Outcome outcome = Outcome::rejected;
    try {
      outcome = wheelmod::elf::read_dynamic(file) ? Outcome::parsed : Outcome::not_elf;
    } catch (const wheelmod::Error&) {
    }
    try {
      wheelmod::elf::EditOptions options;
      options.dry_run = !write;
      options.patchelf = WHEELMOD_PATCHELF;
      (void)wheelmod::elf::set_search_path(file, "/x", wheelmod::elf::SearchPathTag::runpath,
                                           options);
      if (write) ++edited;
    } catch (const wheelmod::Error&) {
    }
    return outcome;
  };

  // Cut anywhere before the end of the last PT_LOAD, the file is broken;
  // after it only section headers and unloaded sections go.
  for (std::size_t length = 0; length <= original.size();
       length += length < 1024 || (length + 64 >= dynamic_offset &&
                                   length <= dynamic_offset + dynamic_size + 64)
                     ? 1
                     : 61) {
    CAPTURE(length);
    const auto expected = length < SELFMAG     ? Outcome::not_elf
                          : length < loads_end ? Outcome::rejected
                                               : Outcome::parsed;
    CHECK(probe(original.substr(0, length), false) == expected);
  }

  // The first 2 KiB hold the headers, .gnu.hash, .dynsym, .dynstr and the
  // version tables of this small library; then the dynamic array.
  std::mt19937 random(20240611);
  std::uniform_int_distribution<std::size_t> where(0, 2048 + dynamic_size - 1);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> how_many(1, 3);
  int parsed = 0, rejected = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string bytes = original;
    for (int n = how_many(random); n > 0; --n) {
      const std::size_t at = where(random);
      bytes[at < 2048 ? at : dynamic_offset + at - 2048] = static_cast<char>(byte(random));
    }
    const auto outcome = probe(bytes, round % 25 == 0);
    parsed += outcome == Outcome::parsed ? 1 : 0;
    rejected += outcome == Outcome::rejected ? 1 : 0;
  }
  CHECK(parsed > 100);
  CHECK(rejected > 100);
  CHECK(edited > 0);
}
