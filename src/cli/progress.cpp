#include "progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <iostream>

#include <fmt/format.h>
#include <sys/ioctl.h>

#include "core/strings.hpp"

namespace wheelmod::cli {

using std::chrono::steady_clock;

std::string format_duration(std::chrono::seconds duration) {
  const auto total = duration.count() < 0 ? 0 : duration.count();
  if (total < 60) return fmt::format("{}s", total);
  if (total < 3600) return fmt::format("{}m{:02}s", total / 60, total % 60);
  return fmt::format("{}h{:02}m", total / 3600, (total % 3600) / 60);
}

namespace {
// The rate is the average over this much of the recent past: long enough
// to smooth bursts, short enough to follow a link that slows down.
constexpr auto k_rate_window = std::chrono::seconds(5);
constexpr auto k_sample_every = std::chrono::milliseconds(200);
constexpr auto k_rate_shown_after = std::chrono::milliseconds(500);
}  // namespace

TaskId ProgressState::add(std::string_view label, std::optional<std::uint64_t> total,
                          TimePoint now) {
  const TaskId id = m_next++;
  m_tasks.emplace(id, Task{std::string(label), total, 0, now, {}});
  return id;
}

void ProgressState::advance(Task& task, std::uint64_t done, TimePoint now) {
  task.done = done;
  if (!task.samples.empty() && now - task.samples.back().first < k_sample_every) return;
  task.samples.emplace_back(now, done);
  // One sample at or before the window's start stays, as the base.
  while (task.samples.size() > 2 && now - task.samples[1].first >= k_rate_window)
    task.samples.pop_front();
}

std::optional<double> ProgressState::rate(const Task& task, TimePoint now) {
  if (task.samples.empty()) return std::nullopt;
  // The newest sample at least a window old, else the oldest there is.
  auto base = task.samples.front();
  for (const auto& sample : task.samples) {
    if (now - sample.first < k_rate_window) break;
    base = sample;
  }
  const std::chrono::duration<double> span = now - base.first;
  if (span < k_rate_shown_after) return std::nullopt;
  return static_cast<double>(task.done - std::min(task.done, base.second)) / span.count();
}

ProgressState::Task* ProgressState::find(TaskId id) {
  const auto it = m_tasks.find(id);
  return it == m_tasks.end() ? nullptr : &it->second;
}

std::string ProgressState::describe(const Task& task, TimePoint now) {
  return describe(task, rate(task, now));
}

std::string ProgressState::describe(const Task& task, std::optional<double> rate) {
  std::string line = task.label;
  if (task.total && *task.total > 0) {
    const auto percent =
        static_cast<unsigned>(std::min<std::uint64_t>(100, task.done * 100 / *task.total));
    line +=
        fmt::format("  {:3}%  {}/{}", percent, format_bytes(task.done), format_bytes(*task.total));
  } else {
    line += fmt::format("  {}", format_bytes(task.done));
  }
  if (rate) {
    line += fmt::format("  {}/s", format_bytes(static_cast<std::uint64_t>(*rate)));
    if (task.total && *task.total > task.done && *rate >= 1) {
      const auto remaining = static_cast<double>(*task.total - task.done) / *rate;
      line += "  ETA " + format_duration(std::chrono::seconds(static_cast<long>(remaining)));
    }
  }
  return line;
}

// ---- plain lines -----------------------------------------------------------

PlainReporter::PlainReporter(std::ostream& out, Clock clock, std::chrono::seconds interval)
    : m_out(out), m_clock(std::move(clock)), m_interval(interval), m_last_report(m_clock()) {}

TaskId PlainReporter::on_start(std::string_view label, std::optional<std::uint64_t> total) {
  const std::lock_guard lock(m_mutex);
  const auto id = m_state.add(terminal_text(label), total, m_clock());
  m_out << "start: " << terminal_text(label);
  if (total) m_out << " (" << format_bytes(*total) << ")";
  m_out << '\n' << std::flush;
  return id;
}

void PlainReporter::on_progress(TaskId id, std::uint64_t done) {
  const std::lock_guard lock(m_mutex);
  auto* task = m_state.find(id);
  if (task == nullptr) return;
  const auto now = m_clock();
  ProgressState::advance(*task, done, now);
  // One batch of lines per interval, for all running tasks: a log of a
  // multi-hour mirror run stays readable.
  if (now - m_last_report < m_interval) return;
  m_last_report = now;
  for (const auto& [_, running] : m_state.tasks())
    m_out << "progress: " << ProgressState::describe(running, now) << '\n';
  m_out << std::flush;
}

void PlainReporter::on_total(TaskId id, std::uint64_t total) {
  const std::lock_guard lock(m_mutex);
  if (auto* task = m_state.find(id)) task->total = total;
}

void PlainReporter::on_finish(TaskId id, std::string_view summary) {
  const std::lock_guard lock(m_mutex);
  auto* task = m_state.find(id);
  if (task == nullptr) return;
  m_out << "done: " << task->label;
  if (!summary.empty()) m_out << " (" << terminal_text(summary) << ")";
  m_out << '\n' << std::flush;
  m_state.remove(id);
}

void PlainReporter::on_fail(TaskId id, std::string_view reason) {
  const std::lock_guard lock(m_mutex);
  auto* task = m_state.find(id);
  if (task == nullptr) return;
  m_out << "failed: " << task->label << ": " << terminal_text(reason) << '\n' << std::flush;
  m_state.remove(id);
}

void PlainReporter::on_warning(std::string_view message) {
  const std::lock_guard lock(m_mutex);
  m_out << "warning: " << terminal_text(message) << '\n' << std::flush;
}

void PlainReporter::on_note(std::string_view message) {
  const std::lock_guard lock(m_mutex);
  m_out << terminal_text(message) << '\n' << std::flush;
}

// ---- terminal bars ---------------------------------------------------------

namespace {
constexpr auto k_redraw_interval = std::chrono::milliseconds(100);
constexpr const char* k_cursor_up_erase = "\x1b[1A\x1b[2K";
constexpr const char* k_erase_line = "\r\x1b[2K";
}  // namespace

TerminalReporter::TerminalReporter(std::ostream& out, Clock clock, unsigned width)
    : m_out(out), m_clock(std::move(clock)), m_width(std::max(width, 40u)) {}

std::string TerminalReporter::bar_line(const ProgressState::Task& task,
                                       std::optional<double> rate) const {
  const auto text = ProgressState::describe(task, rate);
  constexpr std::size_t k_bar_cells = 20;
  std::string bar;
  if (task.total && *task.total > 0) {
    const auto filled = static_cast<std::size_t>(
        std::min<std::uint64_t>(k_bar_cells, task.done * k_bar_cells / *task.total));
    bar = "[" + std::string(filled, '#') + std::string(k_bar_cells - filled, '-') + "] ";
  }
  auto line = bar + text;
  if (line.size() > m_width - 1) line.resize(m_width - 1);
  return line;
}

void TerminalReporter::erase_bars() {
  m_out << k_erase_line;
  for (unsigned i = 0; i < m_lines_drawn; ++i) m_out << k_cursor_up_erase;
  m_lines_drawn = 0;
}

void TerminalReporter::draw_bars() {
  const auto& tasks = m_state.tasks();
  const auto now = m_clock();
  // The total's rate is the sum of the tasks' (each over its own window).
  std::optional<double> total_rate;
  for (const auto& [_, task] : tasks) {
    const auto rate = ProgressState::rate(task, now);
    if (rate) total_rate = total_rate.value_or(0) + *rate;
    m_out << bar_line(task, rate) << '\n';
    ++m_lines_drawn;
  }
  if (tasks.size() > 1) {
    ProgressState::Task total{"total", std::uint64_t{0}, 0, now, {}};
    bool sizes_known = true;
    for (const auto& [_, task] : tasks) {
      total.done += task.done;
      if (task.total)
        *total.total += *task.total;
      else
        sizes_known = false;
    }
    if (!sizes_known) total.total.reset();
    m_out << bar_line(total, total_rate) << '\n';
    ++m_lines_drawn;
  }
  m_out << std::flush;
  m_last_draw = m_clock();
}

TaskId TerminalReporter::on_start(std::string_view label, std::optional<std::uint64_t> total) {
  const std::lock_guard lock(m_mutex);
  const auto id = m_state.add(terminal_text(label), total, m_clock());
  erase_bars();
  draw_bars();
  return id;
}

void TerminalReporter::on_progress(TaskId id, std::uint64_t done) {
  const std::lock_guard lock(m_mutex);
  auto* task = m_state.find(id);
  if (task == nullptr) return;
  const auto now = m_clock();
  ProgressState::advance(*task, done, now);
  if (now - m_last_draw < k_redraw_interval) return;
  erase_bars();
  draw_bars();
}

void TerminalReporter::on_total(TaskId id, std::uint64_t total) {
  const std::lock_guard lock(m_mutex);
  if (auto* task = m_state.find(id)) task->total = total;
}

void TerminalReporter::on_finish(TaskId id, std::string_view summary) {
  const std::lock_guard lock(m_mutex);
  auto* task = m_state.find(id);
  if (task == nullptr) return;
  erase_bars();
  m_out << "done: " << task->label;
  if (!summary.empty()) m_out << " (" << terminal_text(summary) << ")";
  m_out << '\n';
  m_state.remove(id);
  draw_bars();
}

void TerminalReporter::on_fail(TaskId id, std::string_view reason) {
  const std::lock_guard lock(m_mutex);
  auto* task = m_state.find(id);
  if (task == nullptr) return;
  erase_bars();
  m_out << "failed: " << task->label << ": " << terminal_text(reason) << '\n';
  m_state.remove(id);
  draw_bars();
}

void TerminalReporter::on_warning(std::string_view message) {
  const std::lock_guard lock(m_mutex);
  erase_bars();
  m_out << "warning: " << terminal_text(message) << '\n';
  draw_bars();
}

void TerminalReporter::on_note(std::string_view message) {
  const std::lock_guard lock(m_mutex);
  erase_bars();
  m_out << terminal_text(message) << '\n';
  draw_bars();
}

std::unique_ptr<Reporter> make_stderr_reporter(Verbosity verbosity) {
  if (verbosity == Verbosity::quiet) return std::make_unique<NullReporter>();
  auto clock = [] { return steady_clock::now(); };
  if (::isatty(STDERR_FILENO) == 1) {
    winsize size{};
    const unsigned width =
        ::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0 ? size.ws_col : 80;
    return std::make_unique<TerminalReporter>(std::cerr, clock, width);
  }
  return std::make_unique<PlainReporter>(std::cerr, clock, std::chrono::seconds(10));
}

}  // namespace wheelmod::cli
