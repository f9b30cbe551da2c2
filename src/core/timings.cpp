#include "core/timings.hpp"

#include <time.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace wheelmod::timings {

namespace {

struct Entry {
  const char* name;
  std::int64_t value;  // ns for phases, a count for counters
};

struct State {
  std::vector<Entry> phases;  // in the order first entered
  std::vector<Entry> counters;
  std::vector<std::size_t> open;  // indices into phases, innermost last
  std::int64_t mark = 0;          // when the innermost open phase was last resumed
  std::int64_t main_start = -1;
  std::int64_t cpu_before_main = -1;
  std::int64_t static_init = -1;
};

State& state() {
  static State s_state;
  return s_state;
}

std::int64_t now_ns() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

std::size_t index_of(std::vector<Entry>& entries, const char* name) {
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (entries[i].name == name || std::strcmp(entries[i].name, name) == 0) return i;
  entries.push_back({name, 0});
  return entries.size() - 1;
}

// Charges the time since the last mark to the innermost open phase.
void charge(State& s, std::int64_t now) {
  if (!s.open.empty()) s.phases[s.open.back()].value += now - s.mark;
  s.mark = now;
}

void line(std::ostream& err, const char* name, std::int64_t ns) {
  std::array<char, 160> text{};
  std::snprintf(text.data(), text.size(), "timing: %s %.3f\n", name, static_cast<double>(ns) / 1e6);
  err << text.data();
}

bool& enabled_flag() {
  static bool s_enabled = [] {
    const char* value = std::getenv("WHEELMOD_TIMINGS");
    return value != nullptr && *value != '\0' && std::strcmp(value, "0") != 0;
  }();
  return s_enabled;
}

}  // namespace

bool enabled() { return enabled_flag(); }

void set_enabled(bool on) {
  enabled_flag() = on;
  state() = State{};
}

Scope::Scope(const char* phase) {
  if (!enabled()) return;
  auto& s = state();
  charge(s, now_ns());
  s.open.push_back(index_of(s.phases, phase));
  m_open = true;
}

Scope::~Scope() {
  auto& s = state();
  if (!m_open || s.open.empty()) return;  // set_enabled() meanwhile
  charge(s, now_ns());
  s.open.pop_back();
}

void count(const char* name, std::uint64_t n) {
  if (!enabled()) return;
  auto& s = state();
  s.counters[index_of(s.counters, name)].value += static_cast<std::int64_t>(n);
}

void start_main(std::int64_t cpu_before_main_ns, std::int64_t static_init_ns) {
  if (!enabled()) return;
  auto& s = state();
  s.main_start = now_ns();
  s.cpu_before_main = cpu_before_main_ns;
  s.static_init = static_init_ns;
}

void report(std::ostream& err) {
  if (!enabled()) return;
  auto& s = state();
  const std::int64_t now = now_ns();
  charge(s, now);
  if (s.cpu_before_main >= 0) line(err, "before-main-cpu", s.cpu_before_main);
  if (s.static_init >= 0) line(err, "static-init", s.static_init);
  std::int64_t phases = 0;
  for (const auto& phase : s.phases) {
    line(err, phase.name, phase.value);
    phases += phase.value;
  }
  if (s.main_start >= 0) {
    line(err, "other", now - s.main_start - phases);
    line(err, "main", now - s.main_start);
  }
  for (const auto& counter : s.counters)
    err << "count: " << counter.name << ' ' << counter.value << '\n';
  err << std::flush;
}

}  // namespace wheelmod::timings
