// The dynamic symbols of an ELF file with their GNU symbol versions, exported and imported, to
// decide whether one build of a library can replace another under its dependents. Read with
// libelf (elfutils, kept out of this header) and bounds-checked reads.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wheelmod::elf {

struct Symbol {
  std::string name;  // mangled, as in the dynamic string table
  /// The GNU version name ("GLIBC_2.17"); nullopt if unversioned or of the file's base version.
  std::optional<std::string> version;
  /// Defined as name@VER (non-default), which only references bound to VER at link time
  /// reach, unlike name@@VER. Always false when `version` is nullopt.
  bool hidden_version = false;
  /// The version is one this file requires of another (.gnu.version_r), not one it defines:
  /// imports, and a program's copy-relocated data (cout@GLIBCXX_3.4 defined in its .bss),
  /// which ld.so still looks up in the libraries.
  bool version_required = false;
  bool weak = false;  // STB_WEAK
  /// function: STT_FUNC, STT_GNU_IFUNC; object: STT_OBJECT, STT_COMMON; tls: STT_TLS.
  enum class Kind { function, object, tls, other } kind = Kind::other;
};

struct DynamicSymbols {
  /// Undefined (SHN_UNDEF) symbols of binding GLOBAL or WEAK, in table order.
  std::vector<Symbol> imported;
  /// Defined symbols of binding GLOBAL, WEAK or GNU_UNIQUE and visibility DEFAULT or
  /// PROTECTED, in table order (a name may appear once per version).
  std::vector<Symbol> exported;
};

/// Reads .dynsym with .gnu.version, .gnu.version_d and .gnu.version_r, found through the
/// section headers; a file without .dynsym (a static program) gives empty lists. Throws
/// IoError naming `file` when it cannot be opened or is damaged (out-of-range indices or
/// offsets, a versym table of the wrong size, DT_SYMTAB without section headers).
DynamicSymbols read_dynamic_symbols(const std::filesystem::path& file);

/// The same for the file open as `fd` (read with pread(2)); `file` names it in errors.
DynamicSymbols read_dynamic_symbols(int fd, const std::filesystem::path& file);

/// The demangled C++ name (abi::__cxa_demangle), or `name` when it is not one.
std::string demangle(std::string_view name);

}  // namespace wheelmod::elf
