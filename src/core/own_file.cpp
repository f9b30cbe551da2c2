#include "core/own_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include <sys/stat.h>

#include "core/errors.hpp"

namespace wheelmod {

namespace {

[[noreturn]] void refuse(const std::filesystem::path& path, const std::string& what) {
  throw IoError(path.string(), what,
                "something else was put under a name wheelmod uses in this directory: remove it, "
                "and check who can write the directory");
}

}  // namespace

UniqueFd open_own_file(const std::filesystem::path& path, ExistingFile existing, int access,
                       mode_t mode) {
  // O_NONBLOCK: a FIFO planted under the name must not block the open (it is refused below).
  int flags = access | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;
  if (existing == ExistingFile::replace) {
    // unlink(2) removes a link itself, never what it points to.
    if (::unlink(path.c_str()) != 0 && errno != ENOENT)
      refuse(path, std::string("cannot remove what is there: ") + std::strerror(errno));
    flags |= O_EXCL;  // one planted between the unlink and the open makes it fail, not follow
  }
  UniqueFd fd(::open(path.c_str(), flags, mode));
  if (!fd) {
    if (errno == ELOOP) refuse(path, "a symbolic link: refusing to write through it");
    if (errno == EEXIST) refuse(path, "appeared while being created: refusing to open it");
    if (errno == ENXIO) refuse(path, "a FIFO or socket: refusing to write to it");
    throw IoError(path.string(), std::string("cannot create: ") + std::strerror(errno),
                  "check that the directory is writable");
  }
  struct stat status {};
  if (::fstat(fd.get(), &status) != 0)
    throw IoError(path.string(), std::string("cannot stat: ") + std::strerror(errno));
  if (!S_ISREG(status.st_mode)) refuse(path, "not a regular file: refusing to write to it");
  if (status.st_nlink != 1)
    refuse(path, "a regular file with " + std::to_string(status.st_nlink) +
                     " links: refusing to write through a hard link");
  ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
  return fd;
}

}  // namespace wheelmod
