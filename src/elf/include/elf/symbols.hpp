// The dynamic symbols of an ELF file with their GNU symbol versions: what a
// library exports and what it imports, for deciding whether one build of a
// library can replace another under its dependents. Read with libelf
// (elfutils) and bounds-checked reads; libelf stays out of this header.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wheelmod::elf {

struct Symbol {
  /// As in the dynamic string table, mangled
  /// ("_ZN5torch3jit17parseSchemaOrNameERKSsb").
  std::string name;
  /// The GNU version name ("GLIBC_2.17", "VERS_2", a library's own), or
  /// nullopt for an unversioned symbol or one of the file's base version.
  std::optional<std::string> version;
  /// Defined under a non-default version: name@VER, which only references
  /// bound at link time to that version reach, not name@@VER. Always false
  /// when `version` is nullopt.
  bool hidden_version = false;
  /// The version is one this file requires of another (.gnu.version_r), not
  /// one it defines: so for imports, and for a program's copy-relocated
  /// data (cout@GLIBCXX_3.4 defined in an executable's .bss), which ld.so
  /// still looks up in the libraries.
  bool version_required = false;
  bool weak = false;  // STB_WEAK
  /// STT_FUNC and STT_GNU_IFUNC are functions; STT_OBJECT and STT_COMMON
  /// objects; STT_TLS thread-local variables.
  enum class Kind { function, object, tls, other } kind = Kind::other;
};

struct DynamicSymbols {
  /// Undefined (SHN_UNDEF) symbols of binding GLOBAL or WEAK, in table order.
  std::vector<Symbol> imported;
  /// Defined symbols of binding GLOBAL, WEAK or GNU_UNIQUE and visibility
  /// DEFAULT or PROTECTED, in table order (a name may appear once per version).
  std::vector<Symbol> exported;
};

/// Reads .dynsym (SHT_DYNSYM) with .gnu.version (SHT_GNU_versym),
/// .gnu.version_d (verdef) and .gnu.version_r (verneed), found through the
/// section headers. Throws IoError naming `file` when it cannot be opened or
/// is damaged (out-of-range indices or offsets, a versym table of the wrong
/// size, a DT_SYMTAB without section headers); never reads out of bounds.
/// A file without .dynsym (a static program) gives empty lists.
DynamicSymbols read_dynamic_symbols(const std::filesystem::path& file);

/// The demangled C++ name (abi::__cxa_demangle), or `name` itself when it
/// is not a mangled C++ name.
std::string demangle(std::string_view name);

}  // namespace wheelmod::elf
