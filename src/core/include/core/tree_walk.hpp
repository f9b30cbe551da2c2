// A directory tree listed the way `find` lists it: one open and one getdents64(2) pass per
// directory, entry types from the directory entries themselves (d_type), no stat(2) per file and
// no std::filesystem::path per entry. relink and check walk installation prefixes of ~8,000
// files (a torch wheel's Python sources and headers) to find a handful of libraries; with
// recursive_directory_iterator and symlink_status() that walk was most of their run time.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <system_error>

namespace wheelmod {

enum class TreeEntryType { regular, directory, symlink, other };

struct TreeEntry {
  int directory_fd;            // the open directory that holds the entry (for openat, fstatat)
  std::string_view directory;  // its path: the root as given, then root/sub/... (no '/' added)
  std::string_view name;
  TreeEntryType type;  // from d_type; fstatat(AT_SYMLINK_NOFOLLOW) where the file system omits it
  /// `directory`/`name`, spelt as recursive_directory_iterator spells it (root "/p/" gives
  /// "/p/name", root "/p" too).
  [[nodiscard]] std::string path() const;
};

struct TreeWalkOptions {
  /// A subdirectory that cannot be opened for EACCES is passed over (else the walk fails), as
  /// std::filesystem::directory_options::skip_permission_denied.
  bool skip_permission_denied = false;
};

/// Calls `visit` for every entry below `root` (not `root` itself; "." and ".." never), each
/// directory's entries before its subdirectories' and in the order the kernel lists them: callers
/// that need an order sort. Subdirectories are entered (symlinks to directories are not: no loops).
/// An entry that vanishes while listed is reported as `other`. Returns the first error that stops
/// the walk (root not a readable directory, a subdirectory that cannot be opened or read); the
/// entries visited until then were visited.
std::error_code walk_tree(const std::filesystem::path& root,
                          const std::function<void(const TreeEntry&)>& visit,
                          const TreeWalkOptions& options = {});

}  // namespace wheelmod
