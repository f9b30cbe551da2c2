#include "core/cpus.hpp"

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <string>

#include "core/errors.hpp"
#include "core/files.hpp"

namespace wheelmod {

namespace {

std::optional<long long> number(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  long long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<std::string> read_optional(const char* path) {
  try {
    return read_file_if_exists(path);
  } catch (const IoError&) {
    return std::nullopt;
  }
}

std::optional<unsigned> cgroup_cpus() {
  // The process's own cgroup is mounted at /sys/fs/cgroup in a container or with cgroup
  // namespaces (the common case for batch jobs and containers); the root's files say "max".
  if (const auto text = read_optional("/sys/fs/cgroup/cpu.max")) return cgroup_v2_cpus(*text);
  const auto quota = read_optional("/sys/fs/cgroup/cpu/cpu.cfs_quota_us");
  const auto period = read_optional("/sys/fs/cgroup/cpu/cpu.cfs_period_us");
  if (!quota || !period) return std::nullopt;
  const auto q = number(*quota);
  const auto p = number(*period);
  if (!q || !p || *q <= 0 || *p <= 0) return std::nullopt;
  return static_cast<unsigned>((*q + *p - 1) / *p);
}

}  // namespace

std::optional<unsigned> cgroup_v2_cpus(std::string_view cpu_max) {
  const auto space = cpu_max.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const auto quota = number(cpu_max.substr(0, space));
  const auto period = number(cpu_max.substr(space + 1));
  if (!quota || !period || *quota <= 0 || *period <= 0) return std::nullopt;
  return static_cast<unsigned>((*quota + *period - 1) / *period);
}

unsigned usable_cpus() {
  unsigned cpus = 0;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof(set), &set) == 0) cpus = static_cast<unsigned>(CPU_COUNT(&set));
  if (cpus == 0) cpus = 1;
  if (const auto quota = cgroup_cpus()) cpus = std::min(cpus, std::max(1U, *quota));
  return cpus;
}

unsigned threads_or_usable(unsigned requested) {
  return requested != 0 ? requested : usable_cpus();
}

}  // namespace wheelmod
