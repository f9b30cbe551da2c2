// Running another program (the target Python, patchelf) without a shell: arguments passed as
// they are, output captured (bounded), and the result says how it ended.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

#include "core/unique_fd.hpp"

namespace wheelmod {

struct ProgramResult {
  bool started = false;  // false: not found / not executable (`output` says why)
  int exit_code = -1;    // the exit status; -1 when killed by a signal
  std::string output;    // stdout and stderr together, at most the last 64 KiB
};

/// Runs argv[0] (searched on PATH when it has no slash) with argv and waits. Never throws for the
/// program's failure; throws std::invalid_argument for an empty argv.
ProgramResult run_program(const std::vector<std::string>& argv);

/// A program fed through its standard input while it runs (a worker reading one task per line),
/// its stdout and stderr kept in memory (the last 64 KiB) until finish(). Its stdin is one end of
/// a socket pair, written with MSG_NOSIGNAL: a worker that died makes write() return false, it
/// does not kill this process with SIGPIPE. Destroyed before finish(), it kills the program
/// (SIGKILL) and reaps it: nothing outlives a failed run.
class PipedProgram {
 public:
  /// Starts argv (searched on PATH without a slash). Never throws for the program's failure:
  /// started() and error() say.
  explicit PipedProgram(const std::vector<std::string>& argv);
  ~PipedProgram();
  PipedProgram(const PipedProgram&) = delete;
  PipedProgram& operator=(const PipedProgram&) = delete;

  [[nodiscard]] bool started() const { return m_pid > 0; }
  [[nodiscard]] const std::string& error() const { return m_error; }
  /// Writes all of `bytes` to the program's stdin (blocking); false when it has closed it.
  bool write(std::string_view bytes);
  /// Kills the program (SIGKILL) without reaping it: a write() blocked in another thread then
  /// returns false. finish() or the destructor reaps it.
  void kill();
  /// Closes its stdin, waits for it to end, returns its exit status and output.
  ProgramResult finish();

 private:
  pid_t m_pid = -1;
  UniqueFd m_input;   // our end of its stdin
  UniqueFd m_output;  // a memfd holding its stdout and stderr
  std::string m_error;
};

}  // namespace wheelmod
