// Where one run's time goes, on request: with WHEELMOD_TIMINGS=1 in the environment the CLI
// prints one "timing: PHASE MS" line per phase on stderr before it exits (tests/bench/
// bench_small_commands.py reads them). Phases are exclusive: a phase entered inside another
// pauses the outer one, so the lines add up to the time spent in main. Off (the default), a
// Scope costs one load of a flag.
#pragma once

#include <cstdint>
#include <ostream>
#include <string_view>

namespace wheelmod::timings {

/// Whether WHEELMOD_TIMINGS is set to something other than "" or "0" (read once), or what
/// set_enabled said last.
bool enabled();

/// Turns timings on or off whatever the environment says, and forgets what was measured (tests).
void set_enabled(bool on);

/// Charges the wall time of its lifetime to `phase` (a string literal: it is kept, not copied),
/// minus the time of Scopes opened inside it. Not thread-safe: for the main thread only.
class Scope {
 public:
  explicit Scope(const char* phase);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  bool m_open = false;
};

/// Adds `n` to the counter `name` (a string literal), printed after the phases ("elf opens").
void count(const char* name, std::uint64_t n = 1);

/// Marks the start of main() (the phases' total is measured from here); `cpu_before_main_ns`
/// is the process's CPU time when the executable's first initialiser ran (exec, dynamic loading
/// and relocation: ld.so runs no code of the program before that), `static_init_ns` the wall
/// time from there to main (the libraries' and the program's static constructors), or -1.
void start_main(std::int64_t cpu_before_main_ns, std::int64_t static_init_ns);

/// Prints the report: "timing: NAME MS" lines (before-main-cpu, static-init, each phase in the
/// order first entered, "other" for time in main outside every phase, "main" for the total),
/// then "count: NAME N" lines. Nothing when timings are off.
void report(std::ostream& err);

}  // namespace wheelmod::timings
