// The dynamic symbols ELF files define, read once per file (a scan asks for libstdc++'s and
// libtorch's tables for every dependent), and the binding rule for an import.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace wheelmod::swap {

struct Definition {
  std::string version;  // "" when unversioned (or the file's base version)
  bool hidden = false;  // name@VER, not name@@VER
};

using SymbolTable = std::unordered_map<std::string, std::vector<Definition>>;

/// Whether `table` defines `name` for a reference: a versioned reference binds only to a
/// definition of that version (hidden ones too), an unversioned one to a default definition
/// (gABI symbol versioning; glibc elf/dl-lookup.c check_match).
bool defines(const SymbolTable& table, const std::string& name,
             const std::optional<std::string>& version);

class SymbolTables {
 public:
  /// The exported symbols of `file` (its real path is the key). An unreadable file or one that is
  /// no ELF gives an empty table.
  const SymbolTable& of(const std::filesystem::path& file);

 private:
  std::map<std::filesystem::path, std::unique_ptr<SymbolTable>> m_tables;
};

}  // namespace wheelmod::swap
