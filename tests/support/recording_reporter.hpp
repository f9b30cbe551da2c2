// A Reporter that keeps every event it hears, for tests to look at.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/reporter.hpp"

namespace wheelmod::test {

/// Keeps what it is told (safe from several threads, as Reporter must be).
class RecordingReporter final : public Reporter {
 public:
  TaskId on_start(std::string_view label, std::optional<std::uint64_t> total) override {
    const std::lock_guard lock(m_mutex);
    labels.emplace_back(label);
    totals.push_back(total);
    return labels.size();
  }
  void on_progress(TaskId, std::uint64_t done) override {
    const std::lock_guard lock(m_mutex);
    progress.push_back(done);
  }
  void on_total(TaskId, std::uint64_t) override {}
  void on_finish(TaskId, std::string_view summary) override {
    const std::lock_guard lock(m_mutex);
    finished.emplace_back(summary);
  }
  void on_fail(TaskId, std::string_view reason) override {
    const std::lock_guard lock(m_mutex);
    failed.emplace_back(reason);
  }
  void on_warning(std::string_view message) override {
    const std::lock_guard lock(m_mutex);
    warnings.emplace_back(message);
  }
  void on_note(std::string_view message) override {
    const std::lock_guard lock(m_mutex);
    notes.emplace_back(message);
  }

  std::vector<std::string> labels;
  std::vector<std::string> notes;
  std::vector<std::optional<std::uint64_t>> totals;
  std::vector<std::uint64_t> progress;
  std::vector<std::string> finished;
  std::vector<std::string> failed;
  std::vector<std::string> warnings;

 private:
  std::mutex m_mutex;
};

}  // namespace wheelmod::test
