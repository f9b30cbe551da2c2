#include "core/subprocess.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>

#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "core/unique_fd.hpp"

extern char** environ;

namespace wheelmod {

namespace {

constexpr std::size_t k_output_limit = 64 * 1024;

std::vector<char*> c_argv(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  return args;
}

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

ProgramResult run_program(const std::vector<std::string>& argv) {
  if (argv.empty()) throw std::invalid_argument("run_program: empty argv");
  ProgramResult result;
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    result.output = std::string("cannot create a pipe: ") + std::strerror(errno);
    return result;
  }
  UniqueFd read_end(pipe_fds[0]);
  UniqueFd write_end(pipe_fds[1]);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, write_end.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, write_end.get(), STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  auto args = c_argv(argv);
  pid_t pid = 0;
  const int spawned =
      ::posix_spawnp(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  write_end.reset();
  if (spawned != 0) {
    result.output = argv[0] + ": " + std::strerror(spawned);
    return result;
  }
  result.started = true;
  char buffer[8192];
  for (;;) {
    const ssize_t n = ::read(read_end.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    result.output.append(buffer, static_cast<std::size_t>(n));
    if (result.output.size() > 2 * k_output_limit)
      result.output.erase(0, result.output.size() - k_output_limit);
  }
  if (result.output.size() > k_output_limit)
    result.output.erase(0, result.output.size() - k_output_limit);
  result.exit_code = wait_for(pid);
  return result;
}

PipedProgram::PipedProgram(const std::vector<std::string>& argv) {
  if (argv.empty()) throw std::invalid_argument("PipedProgram: empty argv");
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    m_error = std::string("cannot create a socket pair: ") + std::strerror(errno);
    return;
  }
  m_input = UniqueFd(pair[0]);
  const UniqueFd child_input(pair[1]);
  // The output goes to memory, not a pipe: nobody has to drain it while the program runs.
  m_output = UniqueFd(::memfd_create("wheelmod-program-output", MFD_CLOEXEC));
  if (!m_output) {
    m_error = std::string("cannot create a memory file: ") + std::strerror(errno);
    return;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, child_input.get(), STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, m_output.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, m_output.get(), STDERR_FILENO);
  auto args = c_argv(argv);
  pid_t pid = 0;
  const int spawned =
      ::posix_spawnp(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    m_error = argv[0] + ": " + std::strerror(spawned);
    return;
  }
  m_pid = pid;
}

PipedProgram::~PipedProgram() {
  if (m_pid <= 0) return;
  ::kill(m_pid, SIGKILL);
  wait_for(m_pid);
}

void PipedProgram::kill() {
  if (m_pid > 0) ::kill(m_pid, SIGKILL);
}

bool PipedProgram::write(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t sent = ::send(m_input.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(sent));
  }
  return true;
}

ProgramResult PipedProgram::finish() {
  ProgramResult result;
  if (m_pid <= 0) {
    result.output = m_error;
    return result;
  }
  m_input.reset();  // end of its input
  result.started = true;
  result.exit_code = wait_for(std::exchange(m_pid, -1));
  const off_t size = ::lseek(m_output.get(), 0, SEEK_END);
  constexpr auto k_limit = static_cast<off_t>(k_output_limit);
  const off_t from = size > k_limit ? size - k_limit : 0;
  result.output.resize(static_cast<std::size_t>(size - from));
  std::size_t done = 0;
  while (done < result.output.size()) {
    const ssize_t got = ::pread(m_output.get(), result.output.data() + done,
                                result.output.size() - done, from + static_cast<off_t>(done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    done += static_cast<std::size_t>(got);
  }
  result.output.resize(done);
  return result;
}

}  // namespace wheelmod
