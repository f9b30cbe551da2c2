// The dynamic symbols ELF files define, in one index by name: a lookup hashes the name once,
// whatever the number of files a dependent loads, and keeps the definitions of the files asked
// about (a set of file ids). A file is read when first needed: when a lookup finds no definition
// among the files read so far (a package's own libraries are rarely needed once the system's
// are in), and then only once.
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
    [[nodiscard]] Id end() const { return static_cast<Id>(m_members.size()); }

   private:
    std::vector<bool> m_members;
  };

  /// The id of `file` (by its real path). Its symbols are read on first need, or now with
  /// `read_now`. An unreadable file, or one that is no ELF, defines nothing.
  Id add(const std::filesystem::path& file, bool read_now = false);

  /// Whether one of `files` defines `name` for a reference: a versioned reference binds only to a
  /// definition of that version (hidden ones too), an unversioned one to a default definition
  /// (gABI symbol versioning; glibc elf/dl-lookup.c check_match). Reads the files of the set not
  /// read yet, one by one, until one defines it.
  [[nodiscard]] bool defines(const std::string& name, const std::optional<std::string>& version,
                             const Files& files);

 private:
  void read(Id id);
  [[nodiscard]] bool defined_by_read(const std::string& name,
                                     const std::optional<std::string>& version,
                                     const Files& files) const;

  std::map<std::filesystem::path, Id> m_ids;    // by real path
  std::map<std::filesystem::path, Id> m_given;  // by the path asked for (no canonical() again)
  std::vector<std::filesystem::path> m_paths;   // by id
  std::vector<bool> m_read;                     // by id
  std::unordered_map<std::string, std::vector<std::pair<Id, Definition>>> m_definitions;
};

}  // namespace wheelmod::swap
