#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <system_error>
#include <utility>

#include <sys/stat.h>

#include "core/errors.hpp"
#include "core/unique_fd.hpp"

namespace wheelmod {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void throw_io(const fs::path& path, std::string_view what, int error_number) {
  throw IoError(path.string(), std::string(what) + ": " + std::strerror(error_number),
                "check that the directory is writable and its file system has space");
}

// True when `file` is a regular file holding exactly `text`; false when it
// is absent or differs.
bool holds_exactly(const fs::path& file, std::string_view text) {
  const UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) {
    if (errno == ENOENT || errno == ENOTDIR) return false;
    throw_io(file, "cannot open to compare", errno);
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) throw_io(file, "cannot stat", errno);
  if (!S_ISREG(info.st_mode)) {
    throw IoError(file.string(), "exists and is not a regular file",
                  "move it away; wheelmod writes a file there");
  }
  if (static_cast<std::uint64_t>(info.st_size) != text.size()) return false;

  std::array<char, 65536> buffer{};
  std::size_t compared = 0;
  for (;;) {
    const ssize_t got = ::read(fd.get(), buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw_io(file, "cannot read", errno);
    if (got == 0) return compared == text.size();
    const auto count = static_cast<std::size_t>(got);
    // More bytes than fstat said: the file grew meanwhile, so it differs.
    if (count > text.size() - compared) return false;
    if (text.substr(compared, count) != std::string_view(buffer.data(), count)) return false;
    compared += count;
  }
}

// A temporary file beside the target, removed unless it was renamed into
// place: no failure leaves one behind.
class Temporary {
 public:
  explicit Temporary(fs::path path) : m_path(std::move(path)) {}
  ~Temporary() {
    if (!m_committed) ::unlink(m_path.c_str());
  }
  Temporary(const Temporary&) = delete;
  Temporary& operator=(const Temporary&) = delete;
  [[nodiscard]] const fs::path& path() const { return m_path; }
  void commit() { m_committed = true; }

 private:
  fs::path m_path;
  bool m_committed = false;
};

void write_all(int fd, std::string_view text, const fs::path& path) {
  while (!text.empty()) {
    const ssize_t written = ::write(fd, text.data(), text.size());
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) throw_io(path, "cannot write", errno);
    // A short write (a signal, a full quota reached mid-way) is resumed;
    // the next write reports the error if there is one.
    text.remove_prefix(static_cast<std::size_t>(written));
  }
}

}  // namespace

bool write_if_changed(const fs::path& file, const std::string& text, Flush flush) {
  if (holds_exactly(file, text)) return false;

  const fs::path directory = file.has_parent_path() ? file.parent_path() : fs::path(".");
  std::error_code error;
  fs::create_directories(directory, error);
  if (error) throw_io(directory, "cannot create the directory", error.value());

  // Same directory, so the rename stays within one file system and is
  // atomic (rename(2)): a reader sees the old bytes or the new, never half.
  Temporary temporary(directory /
                      ("." + file.filename().string() + ".tmp-" + std::to_string(::getpid())));
  {
    const UniqueFd fd(
        ::open(temporary.path().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666));
    if (!fd) throw_io(temporary.path(), "cannot create", errno);
    write_all(fd.get(), text, temporary.path());
    // The data must be on disk before the rename publishes it, or a crash
    // could leave an empty file under the final name.
    if (flush == Flush::now && ::fsync(fd.get()) != 0)
      throw_io(temporary.path(), "cannot flush to disk", errno);
  }
  if (::rename(temporary.path().c_str(), file.c_str()) != 0) {
    const int error_number = errno;
    throw_io(file, "cannot rename " + temporary.path().filename().string() + " into place",
             error_number);
  }
  temporary.commit();
  if (flush == Flush::later) return true;

  // The rename itself is durable only once the directory is flushed.
  const UniqueFd parent(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!parent) throw_io(directory, "cannot open the directory to flush it", errno);
  // EINVAL: a file system that cannot flush directories (fsync(2)).
  if (::fsync(parent.get()) != 0 && errno != EINVAL) {
    throw_io(directory, "cannot flush the directory to disk", errno);
  }
  return true;
}

void flush_file_system(const fs::path& directory) {
  const UniqueFd fd(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd) throw_io(directory, "cannot open the directory to flush it", errno);
  if (::syncfs(fd.get()) != 0) throw_io(directory, "cannot flush the file system to disk", errno);
}

}  // namespace wheelmod
