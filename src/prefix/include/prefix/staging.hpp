// Installing without ever exposing half a prefix: everything is built in a staging directory
// beside the target (same file system), then moved into place with one rename(2), or swapped with
// an old prefix atomically (renameat2 RENAME_EXCHANGE, Linux 3.15+) and the old tree removed. At
// every instant the target path is either the old installation or the new one.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "core/dir_lock.hpp"

namespace wheelmod::prefix {

enum class ReplaceExisting { no, yes };

/// Locks prefix `target` against other wheelmod runs (install, relink) via `.NAME.wheelmod.lock`
/// beside it; `on_wait` hears when it must wait. Throws IoError when the parent is not writable.
DirectoryLock lock_prefix(const std::filesystem::path& target,
                          const std::function<void(const std::string&)>& on_wait);

/// What may stand at `target` for an install: nothing; with `replace`, also an installation
/// (PREFIX/easybuild/ holding wheelmod's provenance or EasyBuild's files: an easyconfig or an
/// easybuild-*.log) or an empty directory — never a directory of other files (`--prefix .`).
/// Throws UsageError (exit 2) naming the target and what is in it.
void check_replaceable(const std::filesystem::path& target, ReplaceExisting replace);

class Staging {
 public:
  /// Locks the target (lock_prefix), then checks it (check_replaceable: decided under the lock,
  /// so two runs cannot both find it free), removes staging directories killed runs left, and
  /// creates a fresh one. Throws UsageError (exit 2) for a target that may not be replaced,
  /// IoError when the parent is not writable.
  Staging(const std::filesystem::path& target, ReplaceExisting replace,
          const std::function<void(const std::string&)>& on_wait);
  /// Removes the staging directory unless commit() succeeded.
  ~Staging();
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;

  [[nodiscard]] const std::filesystem::path& dir() const { return m_dir; }
  [[nodiscard]] const std::filesystem::path& target() const { return m_target; }

  /// Moves the staging directory to the target (see above). Throws IoError.
  void commit();

 private:
  std::filesystem::path m_target;
  std::filesystem::path m_dir;
  DirectoryLock m_lock;
  ReplaceExisting m_replace = ReplaceExisting::no;
  bool m_committed = false;
};

}  // namespace wheelmod::prefix
