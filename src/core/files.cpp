#include "core/files.hpp"

#include <fcntl.h>
#include <stdlib.h>  // mkdtemp
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <utility>

#include <sys/stat.h>

#include "core/errors.hpp"
#include "core/own_file.hpp"
#include "core/unique_fd.hpp"

namespace wheelmod {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void throw_io(const fs::path& path, std::string_view what, int error_number) {
  throw IoError(path.string(), std::string(what) + ": " + std::strerror(error_number),
                "check that the directory is writable and its file system has space");
}

// Reads what is left of `fd` onto `text`; false with errno set on failure.
bool read_rest(int fd, std::string& text) {
  std::array<char, 65536> buffer{};
  for (;;) {
    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return false;
    if (got == 0) return true;
    text.append(buffer.data(), static_cast<std::size_t>(got));
  }
}

std::optional<std::string> read_whole(const fs::path& file, bool missing_is_error) {
  const UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) {
    if (!missing_is_error && (errno == ENOENT || errno == ENOTDIR)) return std::nullopt;
    throw IoError(file.string(), std::string("cannot read: ") + std::strerror(errno));
  }
  std::string text;
  struct stat info {};
  if (::fstat(fd.get(), &info) == 0 && S_ISREG(info.st_mode))
    text.reserve(static_cast<std::size_t>(info.st_size));
  if (!read_rest(fd.get(), text))
    throw IoError(file.string(), std::string("cannot read: ") + std::strerror(errno));
  return text;
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

fs::path directory_of(const fs::path& file) {
  return file.has_parent_path() ? file.parent_path() : fs::path(".");
}

// Same directory as the target, so the rename stays within one file system
// and is atomic (rename(2)).
fs::path temporary_for(const fs::path& file) {
  return directory_of(file) /
         ("." + file.filename().string() + ".tmp-" + std::to_string(::getpid()));
}

// Writes the temporary in full; with Flush::now its data is on disk before
// the rename publishes it, or a crash could leave an empty file under the
// final name.
void write_temporary(const fs::path& temporary, std::string_view text, Flush flush) {
  const UniqueFd fd = open_own_file(temporary, ExistingFile::replace, O_WRONLY, 0666);
  write_all(fd.get(), text, temporary);
  if (flush == Flush::now && ::fsync(fd.get()) != 0)
    throw_io(temporary, "cannot flush to disk", errno);
}

void rename_into_place(const fs::path& temporary, const fs::path& file) {
  if (::rename(temporary.c_str(), file.c_str()) != 0) {
    const int error_number = errno;
    throw_io(file, "cannot rename " + temporary.filename().string() + " into place", error_number);
  }
}

// A rename is durable only once its directory is flushed.
void flush_directory(const fs::path& directory) {
  const UniqueFd parent(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!parent) throw_io(directory, "cannot open the directory to flush it", errno);
  // EINVAL: a file system that cannot flush directories (fsync(2)).
  if (::fsync(parent.get()) != 0 && errno != EINVAL)
    throw_io(directory, "cannot flush the directory to disk", errno);
}

void make_directories(const fs::path& directory) {
  std::error_code error;
  fs::create_directories(directory, error);
  if (error) throw_io(directory, "cannot create the directory", error.value());
}

}  // namespace

std::string read_file(const fs::path& file) { return *read_whole(file, true); }

std::optional<std::string> read_file_if_exists(const fs::path& file) {
  return read_whole(file, false);
}

bool write_if_changed(const fs::path& file, const std::string& text, Flush flush) {
  if (holds_exactly(file, text)) return false;
  make_directories(directory_of(file));
  const auto temporary = temporary_for(file);
  try {
    write_temporary(temporary, text, flush);
    rename_into_place(temporary, file);
  } catch (...) {
    ::unlink(temporary.c_str());
    throw;
  }
  if (flush == Flush::now) flush_directory(directory_of(file));
  return true;
}

void flush_file_system(const fs::path& directory) {
  const UniqueFd fd(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd) throw_io(directory, "cannot open the directory to flush it", errno);
  if (::syncfs(fd.get()) != 0) throw_io(directory, "cannot flush the file system to disk", errno);
}

AtomicFileSet::~AtomicFileSet() {
  for (const auto& entry : m_entries) ::unlink(entry.temporary.c_str());
}

void AtomicFileSet::add(const fs::path& file, std::string_view text) {
  make_directories(directory_of(file));
  m_entries.push_back({file, temporary_for(file)});
  write_temporary(m_entries.back().temporary, text, Flush::now);
}

void AtomicFileSet::commit() {
  for (auto& entry : m_entries) {
    rename_into_place(entry.temporary, entry.file);
    entry.temporary.clear();  // nothing left to remove
  }
  for (const auto& entry : m_entries) flush_directory(directory_of(entry.file));
  m_entries.clear();
}

namespace {

bool has_data(const fs::path& directory) {
  std::error_code error;
  return fs::is_directory(directory / "config", error) &&
         fs::is_directory(directory / "templates", error);
}

// Whether `path` is `base` or below it (both absolute and normal).
bool is_below(const fs::path& path, const fs::path& base) {
  const auto relative = path.lexically_relative(base);
  return !relative.empty() && *relative.begin() != "..";
}

}  // namespace

DataDirectory data_directory() {
  if (const char* data_dir = std::getenv("WHEELMOD_DATA_DIR"); data_dir && *data_dir) {
    if (!has_data(data_dir))
      throw UsageError("WHEELMOD_DATA_DIR=" + std::string(data_dir),
                       "has no config/ and templates/ directories",
                       "point it at wheelmod's share/wheelmod directory, or unset it");
    return {fs::path(data_dir), "$WHEELMOD_DATA_DIR"};
  }
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  std::string looked;
  if (!error) {
    const auto installed = (exe.parent_path() / ".." / "share" / "wheelmod").lexically_normal();
    if (has_data(installed)) return {installed, "installed beside the binary"};
    looked = installed.string();
    // A development build runs from its build tree and reads the sources it was built from; a
    // binary copied or installed anywhere else must not depend on them still being there.
    const fs::path build_dir = fs::path(WHEELMOD_BUILD_DIR).lexically_normal();
    if (is_below(exe.lexically_normal(), build_dir) && has_data(WHEELMOD_SOURCE_DIR))
      return {fs::path(WHEELMOD_SOURCE_DIR), "source tree (a development build)"};
  }
  throw UsageError("wheelmod",
                   "its data directory (config/, templates/) is not where it looked" +
                       (looked.empty() ? std::string() : ": " + looked),
                   "install wheelmod with `cmake --install` (the binary goes to <prefix>/bin, the "
                   "data to <prefix>/share/wheelmod), or set WHEELMOD_DATA_DIR");
}

fs::path shipped_data_dir(std::string_view name) { return data_directory().path / name; }

TemporaryDirectory::TemporaryDirectory(const fs::path& parent, std::string_view name,
                                       std::string hint) {
  std::error_code error;
  fs::create_directories(parent, error);
  std::string pattern = (parent / (std::string(name) + "XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw IoError(pattern,
                  std::string("cannot create a temporary directory: ") + std::strerror(errno),
                  std::move(hint));
  m_path = pattern;
}

TemporaryDirectory::~TemporaryDirectory() {
  std::error_code ignored;
  fs::remove_all(m_path, ignored);
}

}  // namespace wheelmod
