// The dynamic symbols ELF files define, read once per file (a scan asks for libstdc++'s and
// libtorch's definitions for every dependent) into one index by name: a lookup hashes the name
// once, whatever the number of files a dependent loads, and keeps the definitions of the files
// asked about (a set of file ids).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace wheelmod::swap {

struct Definition {
  std::string version;  // "" when unversioned (or the file's base version)
  bool hidden = false;  // name@VER, not name@@VER
};

class SymbolIndex {
 public:
  using Id = std::uint32_t;

  /// A set of files, by id.
  class Files {
   public:
    void add(Id id) {
      if (id >= m_members.size()) m_members.resize(id + 1, false);
      m_members[id] = true;
    }
    [[nodiscard]] bool contains(Id id) const { return id < m_members.size() && m_members[id]; }

   private:
    std::vector<bool> m_members;
  };

  /// The id of `file` (its real path), reading its exported symbols the first time. An unreadable
  /// file, or one that is no ELF, defines nothing.
  Id add(const std::filesystem::path& file);

  /// Whether one of `files` defines `name` for a reference: a versioned reference binds only to a
  /// definition of that version (hidden ones too), an unversioned one to a default definition
  /// (gABI symbol versioning; glibc elf/dl-lookup.c check_match).
  [[nodiscard]] bool defines(const std::string& name, const std::optional<std::string>& version,
                             const Files& files) const;

 private:
  std::map<std::filesystem::path, Id> m_ids;    // by real path
  std::map<std::filesystem::path, Id> m_given;  // by the path asked for (no canonical() again)
  std::unordered_map<std::string, std::vector<std::pair<Id, Definition>>> m_definitions;
};

}  // namespace wheelmod::swap
