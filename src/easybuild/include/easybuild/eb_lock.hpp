// EasyBuild's lock on an installation directory, taken the way `eb` takes it, so that `eb` and
// wheelmod installing the same software exclude each other (easybuild-framework
// easyblock.py: lock name = the installation directory with every '/' as '_';
// tools/filetools.py det_lock_path, create_lock, check_lock: a directory `<locks dir>/<name>.lock`,
// created with mkdir because that is atomic, waited on per --wait-on-lock-limit/-interval).
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>

namespace wheelmod::easybuild {

/// How long to wait for a lock someone else holds (EasyBuild's wait-on-lock-limit: 0 = do not
/// wait, -1 = wait for ever, N = up to N seconds; wait-on-lock-interval between looks).
struct LockWait {
  long limit_seconds = 0;
  std::chrono::milliseconds interval{60'000};
};

/// `<locks_dir>/<installdir with '/' as '_'>.lock`.
std::filesystem::path lock_path(const std::filesystem::path& locks_dir,
                                const std::filesystem::path& installdir);

class InstallLock {
 public:
  /// Creates the lock directory (its parents too) and a `wheelmod-holder` file in it naming
  /// this process (pid, host, time), which `eb` ignores and the next wheelmod reads. When the
  /// lock exists: waits as `wait` says, calling `on_wait` with a line to show; then throws
  /// IoError (exit 4) naming the lock and its holder ("wheelmod pid 4242 on node1 since ...", or
  /// "an eb run (a directory with no holder file)") and how to clear a stale one. A lock left by a
  /// wheelmod process on this host that no longer runs is taken over.
  static InstallLock acquire(const std::filesystem::path& locks_dir,
                             const std::filesystem::path& installdir, const LockWait& wait,
                             const std::function<void(const std::string&)>& on_wait = {});
  InstallLock(InstallLock&& other) noexcept;
  InstallLock& operator=(InstallLock&&) = delete;
  InstallLock(const InstallLock&) = delete;
  ~InstallLock();  // removes the directory

  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }

 private:
  explicit InstallLock(std::filesystem::path path) : m_path(std::move(path)) {}
  std::filesystem::path m_path;
};

/// Who holds the lock at `path`, in words.
std::string lock_holder(const std::filesystem::path& path);

}  // namespace wheelmod::easybuild
