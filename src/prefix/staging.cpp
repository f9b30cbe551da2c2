#include "prefix/staging.hpp"

#include <fcntl.h>  // AT_FDCWD
#include <stdio.h>  // renameat2, RENAME_EXCHANGE (glibc 2.28+)
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <system_error>
#include <thread>

#include "core/errors.hpp"

namespace wheelmod::prefix {

namespace fs = std::filesystem;

namespace {

std::string staging_prefix(const fs::path& target) {
  return "." + target.filename().string() + ".wheelmod-staging-";
}

// A staging directory whose process is gone: what a killed run left. The
// target's lock is held, so no live wheelmod is filling one. A killed run's byte-compile worker
// may still be finishing a file in it (it stops when it sees wheelmod gone, between files), and
// py_compile's makedirs can bring a removed __pycache__ path back: each is removed again, a few
// times, until it stays gone.
void remove_leftovers(const fs::path& target) {
  const auto prefix = staging_prefix(target);
  for (int attempt = 0; attempt < 5; ++attempt) {
    std::error_code error;
    bool found = false;
    for (const auto& entry : fs::directory_iterator(target.parent_path(), error)) {
      const auto name = entry.path().filename().string();
      if (!name.starts_with(prefix)) continue;
      found = true;
      std::error_code ignored;
      fs::remove_all(entry.path(), ignored);
    }
    if (!found) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20 * (attempt + 1)));
  }
}

}  // namespace

void check_replaceable(const fs::path& target, ReplaceExisting replace) {
  std::error_code error;
  const auto status = fs::symlink_status(target, error);
  if (!fs::exists(status)) return;
  if (replace == ReplaceExisting::no)
    throw UsageError(target.string(), "already exists",
                     "pass --force to replace it (the old installation stays in place until the "
                     "new one is complete), or choose another --prefix");
  if (fs::is_directory(status)) {
    if (fs::is_empty(target, error)) return;
    const auto easybuild = target / "easybuild";
    if (fs::exists(easybuild / "wheelmod-install.json", error)) return;
    for (const auto& entry : fs::directory_iterator(easybuild, error)) {
      const auto name = entry.path().filename().string();
      if (name.ends_with(".eb") || (name.starts_with("easybuild-") && name.ends_with(".log")))
        return;
    }
  }
  std::string shown;
  std::size_t count = 0;
  if (fs::is_directory(status)) {
    for (const auto& entry : fs::directory_iterator(target, error)) {
      if (++count <= 3) shown += (shown.empty() ? "" : ", ") + entry.path().filename().string();
    }
    if (count > 3) shown += ", ... (" + std::to_string(count) + " entries)";
  }
  throw UsageError(target.string(),
                   fs::is_directory(status)
                       ? "not an installation (no easybuild/ with wheelmod's or EasyBuild's "
                         "files); it holds " +
                             shown
                       : "not a directory",
                   "--force replaces only an installation wheelmod or EasyBuild made; choose "
                   "another --prefix, or remove it yourself");
}

DirectoryLock lock_prefix(const fs::path& target,
                          const std::function<void(const std::string&)>& on_wait) {
  return DirectoryLock::acquire(target.parent_path(),
                                "." + target.filename().string() + ".wheelmod.lock", on_wait);
}

Staging::Staging(const fs::path& target, ReplaceExisting replace,
                 const std::function<void(const std::string&)>& on_wait)
    : m_target(fs::absolute(target).lexically_normal()) {
  if (m_target.filename().empty()) m_target = m_target.parent_path();
  std::error_code error;
  check_replaceable(m_target, replace);  // early, before waiting for a lock, for a clear error
  m_lock = lock_prefix(m_target, on_wait);
  check_replaceable(m_target, replace);  // the decision, under the lock
  m_replace = replace;
  remove_leftovers(m_target);
  m_dir = m_target.parent_path() / (staging_prefix(m_target) + std::to_string(::getpid()));
  if (!fs::create_directory(m_dir, error) || error)
    throw IoError(m_dir.string(), "cannot create the staging directory: " + error.message(),
                  "check that the parent of --prefix is writable");
}

Staging::~Staging() {
  if (m_committed || m_dir.empty()) return;
  std::error_code ignored;
  fs::remove_all(m_dir, ignored);
}

void Staging::commit() {
  std::error_code error;
  check_replaceable(m_target, m_replace);
  if (!fs::exists(m_target, error)) {
    if (::rename(m_dir.c_str(), m_target.c_str()) != 0)
      throw IoError(
          m_target.string(),
          std::string("cannot move the new installation into place: ") + std::strerror(errno));
    m_committed = true;
    remove_leftovers(m_target);
    return;
  }
  // Swap: the target becomes the new tree and the staging path the old one,
  // in one step, so no moment shows neither or a mix.
  if (::renameat2(AT_FDCWD, m_dir.c_str(), AT_FDCWD, m_target.c_str(), RENAME_EXCHANGE) != 0)
    throw IoError(
        m_target.string(),
        std::string("cannot swap the new installation into place: ") + std::strerror(errno),
        errno == EINVAL ? "the file system does not support atomic exchange "
                          "(renameat2 RENAME_EXCHANGE); remove the old prefix first"
                        : "");
  m_committed = true;
  fs::remove_all(m_dir, error);  // the old installation, now at the staging path
  remove_leftovers(m_target);    // and what killed runs' workers brought back meanwhile
}

}  // namespace wheelmod::prefix
