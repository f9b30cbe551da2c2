// Running another program (the target Python, patchelf) without a shell: arguments passed as
// they are, output captured (bounded), and the result says how it ended.
#pragma once

#include <string>
#include <vector>

namespace wheelmod {

struct ProgramResult {
  bool started = false;  // false: not found / not executable (`output` says why)
  int exit_code = -1;    // the exit status; -1 when killed by a signal
  std::string output;    // stdout and stderr together, at most the last 64 KiB
};

/// Runs argv[0] (searched on PATH when it has no slash) with argv and waits. Never throws for the
/// program's failure; throws std::invalid_argument for an empty argv.
ProgramResult run_program(const std::vector<std::string>& argv);

}  // namespace wheelmod
