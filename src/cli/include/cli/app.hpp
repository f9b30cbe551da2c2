// The wheelmod command line: builds the CLI11 application, dispatches to
// the subcommands, and maps every error to its exit code in one place.
#pragma once

#include <cstdint>
#include <iosfwd>

namespace wheelmod::cli {

/// What main() measured of the process before it ran (core/timings.hpp start_main); -1: unknown.
struct StartTimes {
  std::int64_t cpu_before_main_ns = -1;
  std::int64_t static_init_ns = -1;
};

/// Runs wheelmod with `argv`, writing data to `out` and messages to `err`.
/// Returns the process exit code (README "Exit codes"). Never throws. With WHEELMOD_TIMINGS
/// set, prints where the time went on `err` last (core/timings.hpp).
int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
        StartTimes start = {});

}  // namespace wheelmod::cli
