// An exclusive lock on a directory, so two wheelmod processes never write into one destination at
// once (two fetches racing on one `.part` would corrupt each other). flock(2) on a file in it: the
// kernel drops the lock when the process dies, so no stale lock survives a SIGKILL.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "core/unique_fd.hpp"

namespace wheelmod {

class DirectoryLock {
 public:
  /// Locks `directory` (created when missing) through the file `name` inside it. When another
  /// process holds it, calls `on_wait` once with a line saying who, then waits. Throws IoError
  /// when the directory or the lock file cannot be created.
  static DirectoryLock acquire(const std::filesystem::path& directory, const std::string& name,
                               const std::function<void(const std::string&)>& on_wait);

  /// Holds no lock (a place to move one into).
  DirectoryLock() = default;

 private:
  explicit DirectoryLock(UniqueFd fd) : m_fd(std::move(fd)) {}
  UniqueFd m_fd;  // the lock lives as long as this descriptor
};

}  // namespace wheelmod
