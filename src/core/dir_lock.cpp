#include "core/dir_lock.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>
#include <system_error>

#include <sys/file.h>

#include "core/errors.hpp"
#include "core/own_file.hpp"

namespace wheelmod {

namespace {

int flock_retrying(int fd, int operation) {
  for (;;) {
    const int result = ::flock(fd, operation);
    if (result == 0 || errno != EINTR) return result;
  }
}

// The holder's pid, as it wrote it, for the waiting message.
std::string holder_of(int fd) {
  char buffer[32] = {};
  const ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
  std::string_view text(buffer, n > 0 ? static_cast<std::size_t>(n) : 0);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  return text.empty() ? std::string("another process") : "process " + std::string(text);
}

}  // namespace

DirectoryLock DirectoryLock::acquire(const std::filesystem::path& directory,
                                     const std::string& name,
                                     const std::function<void(const std::string&)>& on_wait) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error)
    throw IoError(directory.string(), "cannot create the directory: " + error.message(),
                  "check the path and its permissions");
  const auto path = directory / name;
  // Never through a link planted under the name: the file is truncated below.
  UniqueFd fd = open_own_file(path, ExistingFile::reuse, O_RDWR);
  if (flock_retrying(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK)
      throw IoError(path.string(), std::string("cannot lock: ") + std::strerror(errno),
                    "on a network file system without locking, use a local directory");
    on_wait(directory.string() + " is in use by " + holder_of(fd.get()) + "; waiting for it");
    if (flock_retrying(fd.get(), LOCK_EX) != 0)
      throw IoError(path.string(), std::string("cannot lock: ") + std::strerror(errno));
  }
  // Who holds it, for the message another process prints while it waits.
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd.get(), 0) == 0) {
    [[maybe_unused]] const ssize_t written = ::pwrite(fd.get(), pid.data(), pid.size(), 0);
  }
  return DirectoryLock(std::move(fd));
}

}  // namespace wheelmod
