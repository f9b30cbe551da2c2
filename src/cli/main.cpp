#include <time.h>

#include <cstdint>
#include <iostream>

#include "cli/app.hpp"

namespace {

std::int64_t ns_of(clockid_t clock) {
  timespec now{};
  ::clock_gettime(clock, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

std::int64_t g_cpu_at_preinit = -1;
std::int64_t g_wall_at_preinit = -1;

// For WHEELMOD_TIMINGS (cli::StartTimes): the executable's DT_PREINIT_ARRAY runs after ld.so
// has loaded and relocated every library and before any of their initialisers (glibc
// elf/dl-init.c _dl_init; gABI "Initialization and Termination Functions"). The process's
// CPU time then (counted from its fork: the child's share of fork, exec, ld.so) is what
// starting costs; the wall time from here to main is static initialisation. Two clock reads,
// whether timings are on or not.
void record_preinit(int /*argc*/, char** /*argv*/, char** /*envp*/) {
  g_cpu_at_preinit = ns_of(CLOCK_PROCESS_CPUTIME_ID);
  g_wall_at_preinit = ns_of(CLOCK_MONOTONIC);
}

[[gnu::section(".preinit_array"), gnu::used]] void (*const k_preinit)(int, char**,
                                                                      char**) = &record_preinit;

}  // namespace

int main(int argc, char** argv) {
  const wheelmod::cli::StartTimes start{
      .cpu_before_main_ns = g_cpu_at_preinit,
      .static_init_ns = g_wall_at_preinit < 0 ? -1 : ns_of(CLOCK_MONOTONIC) - g_wall_at_preinit};
  return wheelmod::cli::run(argc, argv, std::cout, std::cerr, start);
}
