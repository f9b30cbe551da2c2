// How many CPUs this process may really use: not the machine's count (hardware_concurrency), which
// on a shared login node or in a batch job's cgroup is far more than it was given.
#pragma once

#include <optional>
#include <string_view>

namespace wheelmod {

/// min(the CPUs of this process's affinity mask (sched_getaffinity), its cgroup CPU quota
/// rounded up (cgroup v2 cpu.max, else v1 cpu.cfs_quota_us / cpu.cfs_period_us)), at least 1.
unsigned usable_cpus();

/// The quota of a cgroup v2 `cpu.max` text ("200000 100000" -> 2, "150000 100000" -> 2,
/// "max 100000" -> nullopt); nullopt when it sets no limit or cannot be read.
std::optional<unsigned> cgroup_v2_cpus(std::string_view cpu_max);

/// `requested` when not 0, else usable_cpus(): what a --threads option means.
unsigned threads_or_usable(unsigned requested);

}  // namespace wheelmod
