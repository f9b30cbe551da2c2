// How the CLI draws Reporter events: bars redrawn in place on a terminal,
// plain periodic lines when stderr is a file or pipe (batch jobs, CI logs),
// nothing with --quiet.
#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "core/reporter.hpp"

namespace wheelmod::cli {

using Clock = std::function<std::chrono::steady_clock::time_point()>;

/// "42s", "3m07s", "1h02m".
std::string format_duration(std::chrono::seconds duration);

/// Shared bookkeeping of the two renderers: tasks, their sizes and rates.
class ProgressState {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  struct Task {
    std::string label;
    std::optional<std::uint64_t> total;
    std::uint64_t done = 0;
    TimePoint started;
    /// (when, done) from the first progress report on, a few per second,
    /// reaching back just past the rate window.
    std::deque<std::pair<TimePoint, std::uint64_t>> samples;
  };
  TaskId add(std::string_view label, std::optional<std::uint64_t> total, TimePoint now);
  Task* find(TaskId id);
  void remove(TaskId id) { m_tasks.erase(id); }
  [[nodiscard]] const std::map<TaskId, Task>& tasks() const { return m_tasks; }
  /// `task` has `done` bytes at `now`.
  static void advance(Task& task, std::uint64_t done, TimePoint now);
  /// Bytes per second over the last few seconds, counted from the task's
  /// first progress report (its first bytes), not from its start: a
  /// transfer that waited for a connection, or continued a resumed file,
  /// shows the speed it has now. nullopt until half a second of samples.
  static std::optional<double> rate(const Task& task, TimePoint now);
  /// "label  45%  120.0 MiB/260.0 MiB  35.2 MiB/s  ETA 4s" (parts unknown are left out).
  static std::string describe(const Task& task, TimePoint now);
  /// The same with a rate worked out elsewhere (the total line's: the sum).
  static std::string describe(const Task& task, std::optional<double> rate);

 private:
  std::map<TaskId, Task> m_tasks;
  TaskId m_next = 1;
};

/// Plain lines: one when a task starts, ends or fails, and a progress line
/// per running task at most every `interval`.
class PlainReporter final : public Reporter {
 public:
  PlainReporter(std::ostream& out, Clock clock, std::chrono::seconds interval);
  TaskId on_start(std::string_view label, std::optional<std::uint64_t> total) override;
  void on_progress(TaskId id, std::uint64_t done) override;
  void on_total(TaskId id, std::uint64_t total) override;
  void on_finish(TaskId id, std::string_view summary) override;
  void on_fail(TaskId id, std::string_view reason) override;
  void on_warning(std::string_view message) override;
  void on_note(std::string_view message) override;

 private:
  std::mutex m_mutex;
  std::ostream& m_out;
  Clock m_clock;
  std::chrono::seconds m_interval;
  std::chrono::steady_clock::time_point m_last_report;
  ProgressState m_state;
};

/// Bars redrawn in place (ANSI cursor-up + erase-line), at most every
/// 100 ms, with a total line when more than one task runs. Finished tasks
/// leave one permanent line above the bars.
class TerminalReporter final : public Reporter {
 public:
  TerminalReporter(std::ostream& out, Clock clock, unsigned width);
  TaskId on_start(std::string_view label, std::optional<std::uint64_t> total) override;
  void on_progress(TaskId id, std::uint64_t done) override;
  void on_total(TaskId id, std::uint64_t total) override;
  void on_finish(TaskId id, std::string_view summary) override;
  void on_fail(TaskId id, std::string_view reason) override;
  void on_warning(std::string_view message) override;
  void on_note(std::string_view message) override;

 private:
  void erase_bars();
  void draw_bars();
  std::string bar_line(const ProgressState::Task& task, std::optional<double> rate) const;

  std::mutex m_mutex;
  std::ostream& m_out;
  Clock m_clock;
  unsigned m_width;
  unsigned m_lines_drawn = 0;
  std::chrono::steady_clock::time_point m_last_draw;
  ProgressState m_state;
};

enum class Verbosity { quiet, normal };

/// The reporter for this process: nothing when quiet, bars when stderr is
/// a terminal, plain lines otherwise.
std::unique_ptr<Reporter> make_stderr_reporter(Verbosity verbosity);

}  // namespace wheelmod::cli
