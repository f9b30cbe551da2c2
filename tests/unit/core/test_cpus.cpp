// The CPUs a process may use: its affinity mask and cgroup quota, not the machine's count.
#include <sched.h>

#include <catch2/catch.hpp>

#include "core/cpus.hpp"
#include "core/suggest.hpp"

using namespace wheelmod;

TEST_CASE("cgroup_v2_cpus reads cpu.max", "[core][cpus]") {
  CHECK(cgroup_v2_cpus("200000 100000\n") == 2U);
  CHECK(cgroup_v2_cpus("150000 100000") == 2U);  // a part of a CPU is a CPU to run on
  CHECK(cgroup_v2_cpus("50000 100000") == 1U);
  CHECK_FALSE(cgroup_v2_cpus("max 100000\n"));
  CHECK_FALSE(cgroup_v2_cpus(""));
}

TEST_CASE("usable_cpus follows the affinity mask", "[core][cpus]") {
  cpu_set_t original;
  REQUIRE(::sched_getaffinity(0, sizeof(original), &original) == 0);
  CHECK(usable_cpus() >= 1);
  CHECK(usable_cpus() <= static_cast<unsigned>(CPU_COUNT(&original)));
  // Pinned to one CPU, as `taskset -c 0` or a one-core batch job would: one.
  cpu_set_t one;
  CPU_ZERO(&one);
  for (std::size_t cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &original)) {
      CPU_SET(cpu, &one);
      break;
    }
  REQUIRE(::sched_setaffinity(0, sizeof(one), &one) == 0);
  CHECK(usable_cpus() == 1);
  CHECK(threads_or_usable(0) == 1);
  CHECK(threads_or_usable(3) == 3);
  REQUIRE(::sched_setaffinity(0, sizeof(original), &original) == 0);
}

TEST_CASE("closest suggests a near name, not a far one", "[core][suggest]") {
  const std::vector<std::string> commands{"resolve", "fetch", "install", "check", "module"};
  CHECK(closest("resolv", commands) == "resolve");
  CHECK(closest("instal", commands) == "install");
  CHECK(closest("INSTALL", commands) == "install");
  CHECK_FALSE(closest("frobnicate", commands));
  CHECK(edit_distance("kitten", "sitting") == 3);
}
