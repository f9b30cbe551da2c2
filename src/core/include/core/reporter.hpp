// Events that long-running library code (downloads, unpacking, relinking) reports; the CLI
// decides how to draw them (bars on a terminal, plain lines in a log, nothing with --quiet).
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace wheelmod {

using TaskId = std::uint64_t;

/// Implementations must be safe to call from several threads at once.
class Reporter {
 public:
  virtual ~Reporter() = default;

  /// Task `label` (a file name, a URL) begins; `total` in bytes when known. Returns its id.
  virtual TaskId on_start(std::string_view label, std::optional<std::uint64_t> total) = 0;
  /// `done` bytes of task `id` are complete (absolute, not a delta).
  virtual void on_progress(TaskId id, std::uint64_t done) = 0;
  /// Task `id`'s size became known (or changed) after it started: the server told, not the index.
  virtual void on_total(TaskId id, std::uint64_t total) = 0;
  /// Task `id` ended well; `summary` is a short result ("verified").
  virtual void on_finish(TaskId id, std::string_view summary) = 0;
  /// Task `id` failed; `reason` is one line, for display (the library still throws or returns).
  virtual void on_fail(TaskId id, std::string_view reason) = 0;
  /// Something the user should know that is not a failure.
  virtual void on_warning(std::string_view message) = 0;
  /// A line of information ("index: 12 requests, ..."), not a warning.
  virtual void on_note(std::string_view message) = 0;
};

/// A size as messages give it: "512 B", "1.5 KiB", "2.3 GiB".
std::string format_bytes(std::uint64_t bytes);

/// Discards everything (the default for library callers and tests).
class NullReporter final : public Reporter {
 public:
  // Atomic: Reporter's contract is that several threads may call at once.
  TaskId on_start(std::string_view, std::optional<std::uint64_t>) override {
    return m_next.fetch_add(1, std::memory_order_relaxed);
  }
  void on_progress(TaskId, std::uint64_t) override {}
  void on_total(TaskId, std::uint64_t) override {}
  void on_finish(TaskId, std::string_view) override {}
  void on_fail(TaskId, std::string_view) override {}
  void on_warning(std::string_view) override {}
  void on_note(std::string_view) override {}

 private:
  std::atomic<TaskId> m_next{1};
};

}  // namespace wheelmod
