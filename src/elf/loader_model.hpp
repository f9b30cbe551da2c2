// The search of loader.hpp as a pure function over an ObjectSource (what
// opening a path would find), so that the same code runs on the real file
// system and on an in-memory model in the tests.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "elf/elf_file.hpp"
#include "elf/loader.hpp"

namespace wheelmod::elf {

/// ld.so recognises a file it has loaded by st_dev/st_ino (elf/dl-load.c,
/// _dl_map_object_from_fd), whatever name it was reached under.
struct FileId {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  bool operator==(const FileId&) const = default;
};

enum class ProbeKind {
  missing,  // nothing to open (or not readable): the search goes on
  not_elf,  // opened, but no ELF magic: ld.so fails ("invalid ELF header")
  broken,   // ELF magic, unreadable structures: ld.so fails
  object,   // an ELF object; `info` says which
};

struct Probe {
  ProbeKind kind = ProbeKind::missing;
  DynamicInfo info;
  FileId id;
  std::string real_path;  // symlinks resolved
  std::string problem;    // for not_elf / broken
};

class ObjectSource {
 public:
  virtual ~ObjectSource() = default;
  /// What opening the absolute `path` finds. The reference stays valid
  /// for the lifetime of the source.
  virtual const Probe& probe(const std::string& path) = 0;
};

/// Everything the object at the absolute `root_path` needs, resolved as
/// loader.hpp describes. A root that is not an object gives a result with
/// only `error` set. `loaded_before` are absolute paths of objects in the namespace before the
/// root (Loader::check).
CheckResult resolve_dependencies(const std::string& root_path, const LoaderEnvironment& environment,
                                 ObjectSource& source,
                                 std::span<const std::string> loaded_before = {});

}  // namespace wheelmod::elf
