#include "editor_patchelf.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>  // mkstemp (POSIX)
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include <sys/wait.h>

#include "core/errors.hpp"
#include "core/unique_fd.hpp"

namespace wheelmod::elf::detail {

namespace {

constexpr std::size_t k_copy_block = 1U << 20;
constexpr std::size_t k_max_stderr = 4096;

IoError io_failure(const std::filesystem::path& subject, const std::string& what) {
  return IoError(subject.string(), what + ": " + std::strerror(errno));
}

void write_all(int fd, const char* data, std::size_t size, const std::filesystem::path& subject) {
  while (size > 0) {
    const ssize_t wrote = ::write(fd, data, size);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote < 0) throw io_failure(subject, "cannot write");
    data += wrote;
    size -= static_cast<std::size_t>(wrote);
  }
}

// In the kernel where it can (copy_file_range(2), reflinks on btrfs/XFS);
// through a 1 MiB buffer where it cannot.
void copy_contents(int from, int to, const std::filesystem::path& subject) {
  bool kernel_copy = true;
  std::vector<char> buffer;
  while (true) {
    if (kernel_copy) {
      const ssize_t copied = ::copy_file_range(from, nullptr, to, nullptr, k_copy_block, 0);
      if (copied > 0) continue;
      if (copied == 0) return;
      if (errno == EINTR) continue;
      if (errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP)
        throw io_failure(subject, "cannot copy");
      kernel_copy = false;
      buffer.resize(k_copy_block);
    }
    const ssize_t got = ::read(from, buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw io_failure(subject, "cannot read");
    if (got == 0) return;
    write_all(to, buffer.data(), static_cast<std::size_t>(got), subject);
  }
}

}  // namespace

SiblingCopy::SiblingCopy(const std::filesystem::path& link_or_file) {
  // rename(2) would replace a symbolic link itself: the copy goes beside,
  // and then over, the file the link names.
  std::error_code error;
  const auto file = std::filesystem::canonical(link_or_file, error);
  if (error) throw IoError(link_or_file.string(), "cannot resolve: " + error.message());
  m_original = file;
  const UniqueFd source(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  if (!source || ::fstat(source.get(), &m_original_status) != 0)
    throw io_failure(file, "cannot open");
  std::string pattern =
      (file.parent_path() / ("." + file.filename().string() + ".wheelmod-XXXXXX")).string();
  const UniqueFd copy(::mkstemp(pattern.data()));
  if (!copy) throw io_failure(file, "cannot create a temporary file beside it");
  m_path = pattern;
  try {
    copy_contents(source.get(), copy.get(), file);
  } catch (...) {
    ::unlink(m_path.c_str());
    throw;
  }
}

SiblingCopy::~SiblingCopy() {
  if (!m_committed) ::unlink(m_path.c_str());
}

void SiblingCopy::commit() {
  const UniqueFd copy(::open(m_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!copy) throw io_failure(m_path, "cannot reopen");
  // Root rewriting another user's library keeps that user as the owner;
  // anyone else cannot change owners, and keeps their own.
  if (::geteuid() == 0)
    (void)::fchown(copy.get(), m_original_status.st_uid, m_original_status.st_gid);
  if (::fchmod(copy.get(), m_original_status.st_mode & 07777) != 0)
    throw io_failure(m_path, "cannot set the mode");
  // A crash must leave the old file or all of the new one. ext4 writes a
  // file renamed over another back before the rename anyway (auto_da_alloc,
  // ext4(5)), so this costs nothing more there; other file systems need it.
  if (::fsync(copy.get()) != 0) throw io_failure(m_path, "cannot flush to disk");
  if (::rename(m_path.c_str(), m_original.c_str()) != 0)
    throw io_failure(m_original, "cannot replace with the edited copy");
  m_committed = true;
}

void run_patchelf(const std::string& program, const std::filesystem::path& file,
                  const std::string& value, SearchPathTag tag,
                  const std::filesystem::path& subject) {
  std::vector<std::string> arguments{program, "--set-rpath", value};
  if (tag == SearchPathTag::rpath) arguments.emplace_back("--force-rpath");
  arguments.push_back(file.string());
  std::vector<char*> argv;
  for (auto& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);

  std::array<int, 2> pipe_fds{};
  if (::pipe2(pipe_fds.data(), O_CLOEXEC) != 0) throw io_failure(subject, "cannot create a pipe");
  UniqueFd read_end(pipe_fds[0]);
  UniqueFd write_end(pipe_fds[1]);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, write_end.get(), STDERR_FILENO);
  pid_t child = 0;
  // glibc's posix_spawnp reports a failed exec (ENOENT: not on PATH) here.
  const int spawned =
      ::posix_spawnp(&child, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  write_end.reset();
  if (spawned == ENOENT)
    throw IoError(
        subject.string(),
        "the search path must grow, which needs patchelf, and `" + program + "` was not found",
        "apt-get install patchelf");
  if (spawned != 0)
    throw IoError(subject.string(), "cannot run " + program + ": " + std::strerror(spawned));

  std::string errors;
  std::array<char, 1024> chunk{};
  while (true) {
    const ssize_t got = ::read(read_end.get(), chunk.data(), chunk.size());
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    errors.append(chunk.data(), static_cast<std::size_t>(got));
    if (errors.size() > k_max_stderr) errors.erase(0, errors.size() - k_max_stderr);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  while (!errors.empty() && (errors.back() == '\n' || errors.back() == '\r')) errors.pop_back();
  const std::string how = WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                            : "signal " + std::to_string(WTERMSIG(status));
  IoError error(subject.string(), program + " --set-rpath failed (" + how + ")");
  if (!errors.empty()) error.with_detail(errors);
  throw error;
}

}  // namespace wheelmod::elf::detail
