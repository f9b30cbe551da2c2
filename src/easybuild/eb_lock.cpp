#include "easybuild/eb_lock.hpp"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <system_error>
#include <thread>

#include <sys/stat.h>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "core/utc.hpp"

namespace wheelmod::easybuild {

namespace fs = std::filesystem;

namespace {

constexpr const char* k_holder_file = "wheelmod-holder";

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0) return "unknown";
  return name;
}

struct Holder {
  long pid = 0;
  std::string host;
  std::string since;
};

std::optional<Holder> read_holder(const fs::path& lock) {
  std::optional<std::string> text;
  try {
    text = read_file_if_exists(lock / k_holder_file);
  } catch (const IoError&) {
    return std::nullopt;
  }
  if (!text) return std::nullopt;
  Holder holder;
  char host[256] = {};
  char since[64] = {};
  if (std::sscanf(text->c_str(), "pid %ld host %255s since %63s", &holder.pid, host, since) != 3)
    return std::nullopt;
  holder.host = host;
  holder.since = since;
  return holder;
}

// A wheelmod holder on this host whose process is gone left the lock behind (killed): taking it
// over is safe. An eb lock has no holder file and is never taken over (eb cannot say).
bool is_stale(const fs::path& lock) {
  const auto holder = read_holder(lock);
  if (!holder || holder->host != host_name() || holder->pid <= 0) return false;
  return ::kill(static_cast<pid_t>(holder->pid), 0) != 0 && errno == ESRCH;
}

// The lock appears with its holder file in one step: the directory is made and filled under a
// private name, then renamed into place with RENAME_NOREPLACE (renameat2(2), Linux 3.15; never
// onto eb's empty lock directory, which a plain rename(2) would replace). A process killed at any
// moment leaves either no lock or a lock that names it, so the next run can take it over; a bare
// directory is then always eb's. File systems without RENAME_NOREPLACE (EINVAL: some network
// file systems) get eb's own mkdir and the holder file after it.
class LockCreator {
 public:
  LockCreator(const fs::path& lock, std::string holder)
      : m_lock(lock),
        m_private(lock.parent_path() /
                  ("." + lock.filename().string() + ".wheelmod-" + std::to_string(::getpid()))),
        m_holder(std::move(holder)) {}
  ~LockCreator() {
    std::error_code ignored;
    fs::remove_all(m_private, ignored);
  }
  LockCreator(const LockCreator&) = delete;
  LockCreator& operator=(const LockCreator&) = delete;

  bool try_create() {
    if (m_plain_mkdir) return try_mkdir();
    if (!m_prepared) {
      std::error_code ignored;
      fs::remove_all(m_private, ignored);  // a reused pid's leftover
      if (::mkdir(m_private.c_str(), 0755) != 0) cannot_create(m_private);
      write_if_changed(m_private / k_holder_file, m_holder);
      m_prepared = true;
    }
    if (::renameat2(AT_FDCWD, m_private.c_str(), AT_FDCWD, m_lock.c_str(), RENAME_NOREPLACE) == 0)
      return true;
    if (errno == EEXIST) return false;
    if (errno != EINVAL && errno != ENOSYS) cannot_create(m_lock);
    m_plain_mkdir = true;
    return try_mkdir();
  }

 private:
  bool try_mkdir() {
    if (::mkdir(m_lock.c_str(), 0755) == 0) {
      write_if_changed(m_lock / k_holder_file, m_holder);
      return true;
    }
    if (errno == EEXIST) return false;
    cannot_create(m_lock);
  }
  [[noreturn]] static void cannot_create(const fs::path& path) {
    throw IoError(path.string(),
                  std::string("cannot create EasyBuild's lock: ") + std::strerror(errno),
                  "check that EasyBuild's locks directory is writable (locks-dir)");
  }

  fs::path m_lock;
  fs::path m_private;
  std::string m_holder;
  bool m_prepared = false;
  bool m_plain_mkdir = false;
};

// Private directories (.NAME.lock.wheelmod-PID) of wheelmod processes that were killed.
void remove_dead_private_dirs(const fs::path& lock) {
  const std::string prefix = "." + lock.filename().string() + ".wheelmod-";
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(lock.parent_path(), error)) {
    const auto name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      std::error_code ignored;
      fs::remove_all(entry.path(), ignored);
    }
  }
}

}  // namespace

fs::path lock_path(const fs::path& locks_dir, const fs::path& installdir) {
  std::string name = fs::absolute(installdir).lexically_normal().string();
  while (name.size() > 1 && name.back() == '/') name.pop_back();
  for (char& c : name)
    if (c == '/') c = '_';
  return locks_dir / (name + ".lock");
}

std::string lock_holder(const fs::path& path) {
  if (const auto holder = read_holder(path))
    return "wheelmod pid " + std::to_string(holder->pid) + " on " + holder->host + " since " +
           holder->since;
  return "an eb run, or one that was killed (a lock directory with no holder file)";
}

InstallLock InstallLock::acquire(const fs::path& locks_dir, const fs::path& installdir,
                                 const LockWait& wait,
                                 const std::function<void(const std::string&)>& on_wait) {
  const auto lock = lock_path(locks_dir, installdir);
  std::error_code error;
  fs::create_directories(locks_dir, error);
  remove_dead_private_dirs(lock);
  LockCreator creator(lock, "pid " + std::to_string(::getpid()) + " host " + host_name() +
                                " since " + utc_now() + "\n");
  const auto started = std::chrono::steady_clock::now();
  while (!creator.try_create()) {
    if (is_stale(lock)) {
      fs::remove_all(lock, error);
      continue;
    }
    const auto waited =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started)
            .count();
    if (wait.limit_seconds == 0 || (wait.limit_seconds > 0 && waited >= wait.limit_seconds))
      throw IoError(lock.string(),
                    "EasyBuild's lock on " + fs::absolute(installdir).string() + " is held by " +
                        lock_holder(lock) +
                        (waited > 0 ? "; waited " + std::to_string(waited) + " s" : ""),
                    "wait for that installation to finish; set EASYBUILD_WAIT_ON_LOCK_LIMIT "
                    "(seconds, -1 for ever) to wait, as eb does; remove the directory if its "
                    "holder was killed");
    if (on_wait)
      on_wait("EasyBuild's lock " + lock.string() + " is held by " + lock_holder(lock) +
              ", waiting");
    std::this_thread::sleep_for(wait.interval);
  }
  return InstallLock(lock);
}

InstallLock::InstallLock(InstallLock&& other) noexcept : m_path(std::move(other.m_path)) {
  other.m_path.clear();
}

InstallLock::~InstallLock() {
  if (m_path.empty()) return;
  // Renamed away first, so that the lock disappears with its holder file in one step (a kill
  // while removing must not leave a bare directory, which reads as eb's).
  const auto away = m_path.parent_path() /
                    ("." + m_path.filename().string() + ".wheelmod-" + std::to_string(::getpid()));
  std::error_code ignored;
  if (::rename(m_path.c_str(), away.c_str()) == 0)
    fs::remove_all(away, ignored);
  else
    fs::remove_all(m_path, ignored);
}

}  // namespace wheelmod::easybuild
