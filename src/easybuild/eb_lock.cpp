#include "easybuild/eb_lock.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
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

bool try_create(const fs::path& lock) {
  if (::mkdir(lock.c_str(), 0755) == 0) return true;
  if (errno == EEXIST) return false;
  throw IoError(lock.string(),
                std::string("cannot create EasyBuild's lock: ") + std::strerror(errno),
                "check that EasyBuild's locks directory is writable (locks-dir)");
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
  const auto started = std::chrono::steady_clock::now();
  while (!try_create(lock)) {
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
  InstallLock held(lock);
  const std::string holder =
      "pid " + std::to_string(::getpid()) + " host " + host_name() + " since " + utc_now() + "\n";
  write_if_changed(lock / k_holder_file, holder);
  return held;
}

InstallLock::InstallLock(InstallLock&& other) noexcept : m_path(std::move(other.m_path)) {
  other.m_path.clear();
}

InstallLock::~InstallLock() {
  if (m_path.empty()) return;
  std::error_code ignored;
  fs::remove_all(m_path, ignored);
}

}  // namespace wheelmod::easybuild
