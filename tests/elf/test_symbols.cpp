// read_dynamic_symbols against readelf --dyn-syms (binutils) on libraries
// built here (both libstdc++ string ABIs, GNU symbol versions, weak, TLS,
// protected and hidden symbols, ELF32 where gcc can build it), on the
// libraries this test process has loaded, and on copies patched field by
// field; damaged copies must give IoError or a result, never a crash (the
// dev build runs this under ASan/UBSan). demangle as a table.
#include <elf.h>
#include <link.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "crafted_elf.hpp"
#include "elf/symbols.hpp"
#include "elf_test_support.hpp"
#include "temp_dir.hpp"

namespace {

using wheelmod::elf::DynamicSymbols;
using wheelmod::elf::read_dynamic_symbols;
using wheelmod::elf::Symbol;

// "FUNC WEAK name@@VER": the parts of a readelf --dyn-syms line we compare.
struct Listing {
  std::vector<std::string> imported, exported;
};

// In the order of Symbol::Kind.
constexpr std::array<const char*, 4> k_kind_words{"FUNC", "OBJECT", "TLS", "OTHER"};

Listing listing(const DynamicSymbols& symbols) {
  Listing out;
  for (const auto* list : {&symbols.imported, &symbols.exported}) {
    const bool imported = list == &symbols.imported;
    for (const auto& symbol : *list) {
      std::string line = std::string(k_kind_words.at(static_cast<std::size_t>(symbol.kind))) +
                         (symbol.weak ? " WEAK " : " GLOBAL ") + symbol.name;
      // readelf prints references (and copy relocations) as name@VER,
      // definitions as name@@VER or (hidden) name@VER, and leaves out the
      // version of the absolute symbol that ld makes for each version node.
      if (symbol.version && symbol.version != symbol.name)
        line += (imported || symbol.hidden_version || symbol.version_required ? "@" : "@@") +
                *symbol.version;
      (imported ? out.imported : out.exported).push_back(line);
    }
  }
  std::sort(out.imported.begin(), out.imported.end());
  std::sort(out.exported.begin(), out.exported.end());
  return out;
}

std::string readelf_kind(const std::string& type) {
  if (type == "FUNC" || type == "IFUNC") return "FUNC";
  if (type == "OBJECT" || type == "COMMON") return "OBJECT";
  if (type == "TLS") return "TLS";
  return "OTHER";
}

// Lines of `readelf --dyn-syms -W`:
//   "  12: 000000000000114d    11 FUNC    GLOBAL PROTECTED   13 wm_protected@@VERS_2"
//   "   3: 0000000000000000     0 FUNC    GLOBAL DEFAULT  UND wm_versioned@VERS_2 (3)"
// Vis may be followed by bracketed st_other flags ("[VARIANT_PCS]").
Listing readelf_listing(const std::filesystem::path& file) {
  const auto result = wheelmod::test::run({WHEELMOD_READELF, "--dyn-syms", "-W", file.string()});
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  Listing out;
  std::istringstream lines(result.output);
  std::string line;
  bool in_dynsym = false;
  while (std::getline(lines, line)) {
    if (line.starts_with("Symbol table ")) in_dynsym = line.find("'.dynsym'") != std::string::npos;
    std::istringstream words(line);
    std::string number, value, size, type, bind, visibility, ndx, name;
    if (!in_dynsym || !(words >> number) || number.back() != ':' || number == "0:") continue;
    words >> value >> size >> type >> bind >> visibility >> ndx;
    while (ndx.starts_with('[')) {  // skip "[...]" st_other flags, spaces and all
      while (!ndx.ends_with(']')) words >> ndx;
      words >> ndx;
    }
    words >> name;
    const bool imported = ndx == "UND";
    if (bind != "GLOBAL" && bind != "WEAK" && !(bind == "UNIQUE" && !imported)) continue;
    if (!imported && visibility != "DEFAULT" && visibility != "PROTECTED") continue;
    const std::string entry = readelf_kind(type) + (bind == "WEAK" ? " WEAK " : " GLOBAL ") + name;
    (imported ? out.imported : out.exported).push_back(entry);
  }
  std::sort(out.imported.begin(), out.imported.end());
  std::sort(out.exported.begin(), out.exported.end());
  return out;
}

// Lines of sorted `a` that `b` lacks (as a multiset): a short failure
// message where libc has thousands of symbols.
std::vector<std::string> missing_from(const std::vector<std::string>& a,
                                      const std::vector<std::string>& b) {
  std::vector<std::string> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

void require_agrees_with_readelf(const std::filesystem::path& file) {
  CAPTURE(file);
  const auto ours = listing(read_dynamic_symbols(file));
  const auto reference = readelf_listing(file);
  CHECK(missing_from(reference.imported, ours.imported).empty());
  CHECK(missing_from(ours.imported, reference.imported).empty());
  CHECK(missing_from(reference.exported, ours.exported).empty());
  CHECK(missing_from(ours.exported, reference.exported).empty());
}

const Symbol* find(const std::vector<Symbol>& list, const std::string& name,
                   const std::optional<std::string>& version) {
  const auto found = std::find_if(list.begin(), list.end(), [&](const Symbol& s) {
    return s.name == name && s.version == version;
  });
  return found == list.end() ? nullptr : &*found;
}

int count_named(const std::vector<Symbol>& list, const std::string& name) {
  return static_cast<int>(
      std::count_if(list.begin(), list.end(), [&](const Symbol& s) { return s.name == name; }));
}

// Files this process has loaded (libc, libstdc++, libelf, the sanitizer
// runtimes, ...): big real libraries with hundreds of versions.
std::vector<std::filesystem::path> loaded_libraries() {
  std::vector<std::filesystem::path> files;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        const std::filesystem::path path = info->dlpi_name != nullptr ? info->dlpi_name : "";
        if (!path.empty() && std::filesystem::is_regular_file(path))
          static_cast<std::vector<std::filesystem::path>*>(data)->push_back(path);
        return 0;
      },
      &files);
  return files;
}

}  // namespace

TEST_CASE("dynamic symbols agree with readelf --dyn-syms", "[elf][symbols][readelf]") {
  std::vector<std::filesystem::path> files{WHEELMOD_ELF_SYMBOLS_ABI0,
                                           WHEELMOD_ELF_SYMBOLS_ABI1,
                                           WHEELMOD_ELF_SYMBOLS_VERSIONED,
                                           WHEELMOD_ELF_SYMBOLS_IMPORTER,
                                           WHEELMOD_ELF_SYMBOLS_PROGRAM,
                                           WHEELMOD_ELF_PROGRAM,
                                           WHEELMOD_ELF_DEP};
#ifdef WHEELMOD_ELF_SYMBOLS_M32_IMPORTER
  files.emplace_back(WHEELMOD_ELF_SYMBOLS_M32_VERSIONED);
  files.emplace_back(WHEELMOD_ELF_SYMBOLS_M32_IMPORTER);
#endif
  const auto loaded = loaded_libraries();
  CHECK(loaded.size() >= 3);  // at least libc, libstdc++, libelf
  files.insert(files.end(), loaded.begin(), loaded.end());
  for (const auto& file : files) require_agrees_with_readelf(file);
}

TEST_CASE("the two libstdc++ string ABIs give different names", "[elf][symbols][cxx]") {
  struct Case {
    const char* file;
    const char* mangled;
    const char* readable;
    const char* string_version;  // of the std::string members it imports
  };
  const std::vector<Case> cases{
      {WHEELMOD_ELF_SYMBOLS_ABI0, "_ZN5torch3jit17parseSchemaOrNameERKSsb",
       "torch::jit::parseSchemaOrName(std::string const&, bool)", "GLIBCXX_3.4"},
      {WHEELMOD_ELF_SYMBOLS_ABI1,
       "_ZN5torch3jit17parseSchemaOrNameERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEb",
       "torch::jit::parseSchemaOrName(std::__cxx11::basic_string<char, std::char_traits<char>, "
       "std::allocator<char> > const&, bool)",
       "GLIBCXX_3.4.21"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.file);
    const auto symbols = read_dynamic_symbols(c.file);
    const Symbol* symbol = find(symbols.exported, c.mangled, std::nullopt);
    REQUIRE(symbol != nullptr);  // no version script: unversioned
    CHECK(symbol->kind == Symbol::Kind::function);
    CHECK_FALSE(symbol->weak);
    CHECK_FALSE(symbol->hidden_version);
    CHECK(wheelmod::elf::demangle(symbol->name) == c.readable);
    CHECK(count_named(symbols.exported, "_ZN5torch3jit17parseSchemaOrNameERKSsb") ==
          (std::string(c.string_version) == "GLIBCXX_3.4" ? 1 : 0));
    const auto substr =
        std::find_if(symbols.imported.begin(), symbols.imported.end(),
                     [](const Symbol& s) { return s.name.find("6substrE") != std::string::npos; });
    REQUIRE(substr != symbols.imported.end());
    CHECK(substr->version == c.string_version);
  }
}

TEST_CASE("GNU versions, binding, visibility and kind", "[elf][symbols][versions]") {
  const auto library = read_dynamic_symbols(WHEELMOD_ELF_SYMBOLS_VERSIONED);
  struct Expected {
    const char* name;
    const char* version;
    bool hidden, weak;
    Symbol::Kind kind;
  };
  using K = Symbol::Kind;
  const std::vector<Expected> exported{
      {"wm_versioned", "VERS_1", true, false, K::function},
      {"wm_versioned", "VERS_2", false, false, K::function},
      {"wm_only_v1", "VERS_1", false, false, K::function},
      {"wm_weak_hook", "VERS_2", false, true, K::function},
      {"wm_tls_counter", "VERS_2", false, false, K::tls},
      {"wm_table", "VERS_2", false, false, K::object},
      {"wm_protected", "VERS_2", false, false, K::function},
      {"wm_calls", "VERS_2", false, false, K::function},
  };
  const auto check = [](const std::vector<Symbol>& list, const std::vector<Expected>& table,
                        bool required) {
    for (const auto& e : table) {
      CAPTURE(e.name, e.version);
      const Symbol* symbol = find(list, e.name, e.version);
      REQUIRE(symbol != nullptr);
      CHECK(symbol->hidden_version == e.hidden);
      CHECK(symbol->version_required == required);
      CHECK(symbol->weak == e.weak);
      CHECK(symbol->kind == e.kind);
    }
  };
  check(library.exported, exported, false);
  CHECK(count_named(library.exported, "wm_versioned") == 2);
  for (const char* absent : {"wm_hidden_helper", "wm_versioned_v1", "wm_versioned_v2"}) {
    CAPTURE(absent);
    CHECK(count_named(library.exported, absent) == 0);
    CHECK(count_named(library.imported, absent) == 0);
  }
  const Symbol* maybe = find(library.imported, "wm_maybe_missing", std::nullopt);
  REQUIRE(maybe != nullptr);
  CHECK(maybe->weak);

  const auto importer = read_dynamic_symbols(WHEELMOD_ELF_SYMBOLS_IMPORTER);
  const std::vector<Expected> imported{
      {"wm_versioned", "VERS_2", false, false, K::function},
      {"wm_only_v1", "VERS_1", false, true, K::function},
      {"wm_tls_counter", "VERS_2", false, false, K::tls},
      {"wm_table", "VERS_2", false, false, K::object},
  };
  check(importer.imported, imported, true);
  for (const char* libc : {"strlen", "getenv"}) {
    CAPTURE(libc);
    const auto symbol = std::find_if(importer.imported.begin(), importer.imported.end(),
                                     [&](const Symbol& s) { return s.name == libc; });
    REQUIRE(symbol != importer.imported.end());
    CHECK(symbol->version.value_or("").starts_with("GLIBC_2."));
  }
  REQUIRE(find(importer.exported, "wm_import_all", std::nullopt) != nullptr);
  CHECK(importer.exported.size() == 1);

  // A program's copy relocation defines the data it uses, at the version
  // it requires; without one (not x86-64) the data stays an import.
  const auto program = read_dynamic_symbols(WHEELMOD_ELF_SYMBOLS_PROGRAM);
  const Symbol* table = find(program.exported, "wm_table", "VERS_2");
  if (table == nullptr) table = find(program.imported, "wm_table", "VERS_2");
  REQUIRE(table != nullptr);
  CHECK(table->version_required);
  CHECK_FALSE(table->hidden_version);
}

TEST_CASE("files without .dynsym give empty lists", "[elf][symbols]") {
  wheelmod::test::TempDir temp("wheelmod-symbols");
  // A crafted library without section headers or DT_SYMTAB, and a static program.
  const auto crafted = temp.path() / "crafted.so";
  wheelmod::test::write_file(
      crafted,
      wheelmod::test::craft_elf(wheelmod::test::crafted_library(true, true, "libc.so")).bytes);
  for (const auto& file : {crafted, std::filesystem::path(WHEELMOD_ELF_STATIC)}) {
    CAPTURE(file);
    const auto symbols = read_dynamic_symbols(file);
    CHECK(symbols.imported.empty());
    CHECK(symbols.exported.empty());
  }
}

TEST_CASE("unreadable and non-ELF files are IoErrors naming them", "[elf][symbols]") {
  wheelmod::test::TempDir temp("wheelmod-symbols");
  temp.write("script.py", "print('not ELF')\n");
  const std::vector<std::pair<std::filesystem::path, const char*>> cases{
      {temp.path() / "missing.so", "cannot open"},
      {temp.path() / "script.py", "not an ELF file"},
      {temp.path(), "not an ELF file"},
  };
  for (const auto& [file, expected] : cases) {
    CAPTURE(file);
    try {
      (void)read_dynamic_symbols(file);
      FAIL("no error");
    } catch (const wheelmod::IoError& error) {
      CHECK(error.subject() == file.string());
      CHECK(error.cause().find(expected) != std::string::npos);
    }
  }
}

TEST_CASE("demangle", "[elf][symbols][demangle]") {
  const std::vector<std::pair<const char*, const char*>> cases{
      {"_ZN5torch3jit17parseSchemaOrNameERKSsb",
       "torch::jit::parseSchemaOrName(std::string const&, bool)"},
      {"_ZN3c1019UndefinedTensorImpl10_singletonE", "c10::UndefinedTensorImpl::_singleton"},
      {"_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE4findEcm",
       "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> "
       ">::find(char, "
       "unsigned long) const"},
      {"strlen", "strlen"},
      {"_Z", "_Z"},                  // not a complete mangled name
      {"_Zinvalid!", "_Zinvalid!"},  // nor this
      {"", ""},
  };
  for (const auto& [name, expected] : cases) {
    CAPTURE(name);
    CHECK(wheelmod::elf::demangle(name) == expected);
  }
}

namespace {

// A copy of an ELF64 little-endian fixture, to change one field. Offsets:
// gABI "ELF Header", "Sections", "Symbol Table"; LSB "Symbol Versioning"
// (Verdef: vd_version 0, vd_aux 12, vd_next 16; Verneed: vn_version 0,
// vn_cnt 2, vn_aux 8, vn_next 12; Vernaux: vna_name 8, vna_next 12).
struct Patchable {
  explicit Patchable(const char* file) : bytes(wheelmod::test::read_file(file)) {
    REQUIRE(get(EI_CLASS, 1) == ELFCLASS64);
    REQUIRE(get(EI_DATA, 1) == ELFDATA2LSB);
  }
  [[nodiscard]] std::uint64_t get(std::size_t offset, std::size_t size) const {
    std::uint64_t value = 0;
    for (std::size_t i = size; i > 0; --i)
      value = (value << 8U) | static_cast<unsigned char>(bytes.at(offset + i - 1));
    return value;
  }
  void set(std::size_t offset, std::uint64_t value, std::size_t size) {
    for (std::size_t i = 0; i < size; ++i)
      bytes.at(offset + i) = static_cast<char>((value >> (8 * i)) & 0xffU);
  }
  void add(std::size_t offset, std::int64_t delta, std::size_t size) {
    set(offset, get(offset, size) + static_cast<std::uint64_t>(delta), size);
  }
  // File offsets of section headers: of section `index`, of the first of
  // `type`, of .dynsym's string table.
  [[nodiscard]] std::size_t header_at(std::uint64_t index) const {
    return get(offsetof(Elf64_Ehdr, e_shoff), 8) + index * sizeof(Elf64_Shdr);
  }
  [[nodiscard]] std::optional<std::size_t> find_header(std::uint32_t type) const {
    for (std::size_t i = 0; i < get(offsetof(Elf64_Ehdr, e_shnum), 2); ++i)
      if (get(header_at(i) + offsetof(Elf64_Shdr, sh_type), 4) == type) return header_at(i);
    return std::nullopt;
  }
  [[nodiscard]] std::size_t header(std::uint32_t type) const {
    REQUIRE(find_header(type).has_value());
    return *find_header(type);
  }
  [[nodiscard]] std::size_t dynstr() const {
    return header_at(get(header(SHT_DYNSYM) + offsetof(Elf64_Shdr, sh_link), 4));
  }
  // File offset of the contents of the section whose header is at `at`.
  [[nodiscard]] std::size_t contents(std::size_t at) const {
    return get(at + offsetof(Elf64_Shdr, sh_offset), 8);
  }
  // Index of the .dynsym entry called `name`.
  [[nodiscard]] std::size_t symbol(const std::string& name) const {
    const std::size_t table = contents(header(SHT_DYNSYM)), strings = contents(dynstr());
    const std::size_t count = get(header(SHT_DYNSYM) + offsetof(Elf64_Shdr, sh_size), 8) / 24;
    for (std::size_t i = 1; i < count; ++i)
      if (bytes.c_str() + strings + get(table + 24 * i, 4) == name) return i;
    FAIL("no dynamic symbol " << name);
    return 0;
  }
  [[nodiscard]] std::size_t symbol_field(const std::string& name, std::size_t field) const {
    return contents(header(SHT_DYNSYM)) + 24 * symbol(name) + field;
  }
  [[nodiscard]] std::size_t versym(const std::string& name) const {
    return contents(header(SHT_GNU_versym)) + 2 * symbol(name);
  }
  std::string bytes;
};

using Patch = void (*)(Patchable&);
std::size_t verdef(const Patchable& p) { return p.contents(p.header(SHT_GNU_verdef)); }
std::size_t verneed(const Patchable& p) { return p.contents(p.header(SHT_GNU_verneed)); }
constexpr std::size_t k_st_info = offsetof(Elf64_Sym, st_info);
constexpr std::size_t k_st_other = offsetof(Elf64_Sym, st_other);
constexpr std::size_t k_sh_type = offsetof(Elf64_Shdr, sh_type);
constexpr std::size_t k_sh_offset = offsetof(Elf64_Shdr, sh_offset);
constexpr std::size_t k_sh_size = offsetof(Elf64_Shdr, sh_size);

}  // namespace

TEST_CASE("binding, visibility and version index rules on patched copies",
          "[elf][symbols][patched]") {
  wheelmod::test::TempDir temp("wheelmod-symbols");
  struct Case {
    const char* name;
    Patch patch;
    const char* symbol;
    int exported, imported;  // how many entries of that name
    std::optional<std::string> version = std::nullopt;
    bool hidden = false;
  };
  const std::vector<Case> cases{
      {"STV_HIDDEN",
       [](Patchable& p) { p.set(p.symbol_field("wm_table", k_st_other), STV_HIDDEN, 1); },
       "wm_table", 0, 0},
      {"STV_INTERNAL",
       [](Patchable& p) { p.set(p.symbol_field("wm_table", k_st_other), STV_INTERNAL, 1); },
       "wm_table", 0, 0},
      {"STB_LOCAL definition",
       [](Patchable& p) {
         p.set(p.symbol_field("wm_calls", k_st_info), STB_LOCAL << 4 | STT_FUNC, 1);
       },
       "wm_calls", 0, 0},
      // ld marks a file using STB_GNU_UNIQUE ELFOSABI_GNU; readelf names it only then.
      {"STB_GNU_UNIQUE",
       [](Patchable& p) {
         p.set(EI_OSABI, ELFOSABI_GNU, 1);
         p.set(p.symbol_field("wm_table", k_st_info), STB_GNU_UNIQUE << 4 | STT_OBJECT, 1);
       },
       "wm_table", 1, 0, "VERS_2"},
      {"STB_LOCAL reference",
       [](Patchable& p) {
         p.set(p.symbol_field("wm_maybe_missing", k_st_info), STB_LOCAL << 4, 1);
       },
       "wm_maybe_missing", 0, 0},
      {"hidden bit", [](Patchable& p) { p.add(p.versym("wm_only_v1"), 0x8000, 2); }, "wm_only_v1",
       1, 0, "VERS_1", true},
      {"VER_NDX_LOCAL", [](Patchable& p) { p.set(p.versym("wm_calls"), 0, 2); }, "wm_calls", 1, 0},
      {"VER_NDX_GLOBAL", [](Patchable& p) { p.set(p.versym("wm_calls"), 1, 2); }, "wm_calls", 1, 0},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    Patchable library(WHEELMOD_ELF_SYMBOLS_VERSIONED);
    c.patch(library);
    const auto file = temp.path() / "patched.so";
    wheelmod::test::write_file(file, library.bytes);
    const auto symbols = read_dynamic_symbols(file);
    CHECK(count_named(symbols.exported, c.symbol) == c.exported);
    CHECK(count_named(symbols.imported, c.symbol) == c.imported);
    if (c.exported == 1) {
      const Symbol* symbol = find(symbols.exported, c.symbol, c.version);
      REQUIRE(symbol != nullptr);
      CHECK(symbol->hidden_version == c.hidden);
    }
    require_agrees_with_readelf(file);
  }
}

TEST_CASE("damaged symbol and version tables are IoErrors naming the file",
          "[elf][symbols][broken]") {
  wheelmod::test::TempDir temp("wheelmod-symbols");
  struct Case {
    const char* name;
    const char* file;
    Patch patch;
    const char* expected;
  };
  const char* library = WHEELMOD_ELF_SYMBOLS_VERSIONED;
  const char* importer = WHEELMOD_ELF_SYMBOLS_IMPORTER;
  const std::vector<Case> cases{
      {"versym too short", library,
       [](Patchable& p) { p.add(p.header(SHT_GNU_versym) + k_sh_size, -2, 8); }, ".gnu.version is"},
      {"undeclared version index", library,
       [](Patchable& p) { p.set(p.versym("wm_calls"), 0x42, 2); }, "has version index 66"},
      {"vd_next past the section", library, [](Patchable& p) { p.set(verdef(p) + 16, 0x10000, 4); },
       "runs past the section's"},
      {"vd_version 2", library, [](Patchable& p) { p.set(verdef(p), 2, 2); }, "has vd_version 2"},
      {"vda_name outside the strings", library,
       [](Patchable& p) { p.set(verdef(p) + p.get(verdef(p) + 12, 4), 0x100000, 4); },
       "is outside string table section"},
      {"vn_version 7", importer, [](Patchable& p) { p.set(verneed(p), 7, 2); }, "has vn_version 7"},
      {"vn_aux past the section", importer, [](Patchable& p) { p.set(verneed(p) + 8, 0x10000, 4); },
       "runs past the section's"},
      {"vna_name outside the strings", importer,
       [](Patchable& p) { p.set(verneed(p) + p.get(verneed(p) + 8, 4) + 8, 0x100000, 4); },
       "is outside string table section"},
      {"Vernaux chain longer than the section", importer,
       [](Patchable& p) {
         p.set(verneed(p) + 2, 0xffff, 2);  // vn_cnt
         for (std::size_t at = 16; at < p.get(p.header(SHT_GNU_verneed) + k_sh_size, 8); at += 16)
           p.set(verneed(p) + at + 12, 16, 4);  // vna_next
       },
       "holds more entries than fit"},
      {"st_name outside the strings", library,
       [](Patchable& p) { p.set(p.symbol_field("wm_calls", 0), 0x100000, 4); },
       "is outside string table section"},
      {"the last string without its NUL", library,  // GLIBC_2.3, a requirement
       [](Patchable& p) { p.add(p.dynstr() + k_sh_size, -1, 8); },
       "has no NUL before the section's end"},
      {".dynsym linked to section 0", library,
       [](Patchable& p) { p.set(p.header(SHT_DYNSYM) + offsetof(Elf64_Shdr, sh_link), 0, 4); },
       "is not a string table section"},
      {".dynsym entry size", library,
       [](Patchable& p) { p.set(p.header(SHT_DYNSYM) + offsetof(Elf64_Shdr, sh_entsize), 16, 8); },
       ".dynsym has entries of 16 bytes"},
      {".dynsym past the end", library,
       [](Patchable& p) { p.set(p.header(SHT_DYNSYM) + k_sh_offset, p.bytes.size() - 24, 8); },
       "ends beyond the file's"},
      {".dynsym larger than the file", library,
       [](Patchable& p) { p.set(p.header(SHT_DYNSYM) + k_sh_size, 24ULL << 35, 8); },
       "more than the file's"},
      {"no .dynsym but DT_SYMTAB", library,
       [](Patchable& p) { p.set(p.header(SHT_DYNSYM) + k_sh_type, SHT_PROGBITS, 4); },
       "DT_SYMTAB is set but no section header"},
      {"section headers past the end", library,
       [](Patchable& p) { p.set(offsetof(Elf64_Ehdr, e_shoff), p.bytes.size() - 10, 8); },
       "section headers at offset"},
      {"e_shentsize", library,
       [](Patchable& p) { p.set(offsetof(Elf64_Ehdr, e_shentsize), 10, 2); },
       "e_shentsize is 10, not 64"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    Patchable patched(c.file);
    c.patch(patched);
    const auto file = temp.path() / "broken.so";
    wheelmod::test::write_file(file, patched.bytes);
    try {
      (void)read_dynamic_symbols(file);
      FAIL("no error");
    } catch (const wheelmod::IoError& error) {
      CAPTURE(error.render());
      CHECK(error.subject() == file.string());
      CHECK(error.cause().find("broken ELF file") == 0);
      CHECK(error.cause().find(c.expected) != std::string::npos);
    }
  }
}

TEST_CASE("fuzz: damaged copies never crash", "[elf][symbols][fuzz]") {
  wheelmod::test::TempDir temp("wheelmod-symbols");
  const auto file = temp.path() / "fuzzed.so";
  enum class Outcome { parsed, rejected };
  const auto probe = [&](const std::string& bytes) {
    wheelmod::test::write_file(file, bytes);
    try {
      (void)read_dynamic_symbols(file);
      return Outcome::parsed;
    } catch (const wheelmod::IoError& error) {
      CHECK(error.subject() == file.string());
      return Outcome::rejected;
    }
  };
  std::mt19937 random(20240612);
  int parsed = 0, rejected = 0;
  for (const char* name : {WHEELMOD_ELF_SYMBOLS_VERSIONED, WHEELMOD_ELF_SYMBOLS_IMPORTER}) {
    CAPTURE(name);
    const Patchable original(name);
    // The section headers come last: every cut file has lost some of them.
    const std::size_t size = original.bytes.size();
    for (std::size_t length = 0; length < size;
         length += length < 1024 || length + 2048 > size ? 1 : 37) {
      CAPTURE(length);
      CHECK(probe(original.bytes.substr(0, length)) == Outcome::rejected);
    }
    // Bytes flipped in the ELF header, the section headers and the tables read.
    std::vector<std::pair<std::size_t, std::size_t>> regions{
        {0, sizeof(Elf64_Ehdr)},
        {original.header_at(0),
         original.get(offsetof(Elf64_Ehdr, e_shnum), 2) * sizeof(Elf64_Shdr)}};
    for (const auto header :
         {std::optional(original.dynstr()), original.find_header(SHT_DYNSYM),
          original.find_header(SHT_GNU_versym), original.find_header(SHT_GNU_verdef),
          original.find_header(SHT_GNU_verneed)})
      if (header)
        regions.emplace_back(original.contents(*header), original.get(*header + k_sh_size, 8));
    std::uniform_int_distribution<std::size_t> which(0, regions.size() - 1);
    std::uniform_int_distribution<int> byte(0, 255), how_many(1, 3);
    for (int round = 0; round < 1500; ++round) {
      std::string bytes = original.bytes;
      for (int n = how_many(random); n > 0; --n) {
        const auto& [start, length] = regions[which(random)];
        bytes[start + std::uniform_int_distribution<std::size_t>(0, length - 1)(random)] =
            static_cast<char>(byte(random));
      }
      (probe(bytes) == Outcome::parsed ? parsed : rejected) += 1;
    }
  }
  CHECK(parsed > 300);
  CHECK(rejected > 300);
}
