#include "operations/fetch.hpp"

#include <mutex>

#include <nlohmann/json.hpp>

#include "core/dir_lock.hpp"
#include "core/files.hpp"
#include "core/json_depth.hpp"

namespace wheelmod::operations {

namespace fs = std::filesystem;

namespace {

/// Passes events on, and keeps the warnings for the result.
class WarningRecorder final : public Reporter {
 public:
  explicit WarningRecorder(Reporter& next) : m_next(next) {}
  TaskId on_start(std::string_view label, std::optional<std::uint64_t> total) override {
    return m_next.on_start(label, total);
  }
  void on_progress(TaskId id, std::uint64_t done) override { m_next.on_progress(id, done); }
  void on_total(TaskId id, std::uint64_t total) override { m_next.on_total(id, total); }
  void on_finish(TaskId id, std::string_view summary) override { m_next.on_finish(id, summary); }
  void on_fail(TaskId id, std::string_view reason) override { m_next.on_fail(id, reason); }
  void on_note(std::string_view message) override { m_next.on_note(message); }
  void on_warning(std::string_view message) override {
    {
      const std::lock_guard lock(m_mutex);
      m_warnings.emplace_back(message);
    }
    m_next.on_warning(message);
  }
  [[nodiscard]] std::vector<std::string> warnings() const {
    const std::lock_guard lock(m_mutex);
    return m_warnings;
  }

 private:
  Reporter& m_next;
  mutable std::mutex m_mutex;
  std::vector<std::string> m_warnings;
};

resolve::ResolveReport read_report(const std::string& path) {
  std::string text;
  try {
    text = read_file(path);
  } catch (const IoError&) {
    throw UsageError("--from-report " + path, "cannot read the file",
                     "write it with `wheelmod resolve ... --format json > FILE`");
  }
  if (const auto at = json_too_deep(text))
    throw UsageError(path,
                     "nested deeper than " + std::to_string(k_json_max_depth) + " levels (byte " +
                         std::to_string(*at) + "): not a resolve report",
                     "write it with `wheelmod resolve ... --format json > FILE`");
  const auto document = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded())
    throw UsageError(path, "not valid JSON",
                     "write it with `wheelmod resolve ... --format json > FILE`");
  return resolve::report_from_json(document, path);
}

// pip's --require-hashes refuses before downloading anything; so does this.
void require_hashes(const resolve::ResolveReport& report) {
  std::vector<std::string> unhashed;
  for (const auto& wheel : report.wheels)
    if (!wheel.sha256) unhashed.push_back(wheel.filename);
  if (unhashed.empty()) return;
  IntegrityError error(
      "--require-hashes",
      std::to_string(unhashed.size()) + " of " + std::to_string(report.wheels.size()) +
          " wheels have no SHA-256 in the index",
      "drop --require-hashes to fetch them with the hash computed on download (and recorded), "
      "or add the digests to the report you review");
  for (const auto& name : unhashed) error.with_detail(name);
  throw error;
}

}  // namespace

FetchResult fetch(const FetchOptions& options, Reporter& next) {
  require_one_source("fetch", "fetch", !options.selection.specs.empty(), "SPEC...",
                     !options.from_report.empty(), "--from-report",
                     "e.g. `wheelmod fetch torch==2.6.0 --toolchain foss-2024a --dest DIR`, or "
                     "`wheelmod fetch --from-report report.json --dest DIR`");
  check_jobs(options.download);
  WarningRecorder reporter(next);
  FetchResult result;
  result.report = options.from_report.empty()
                      ? resolve_selection(options.selection,
                                          load_site_config(options.selection.config_dir,
                                                           options.selection.toolchain),
                                          reporter)
                      : read_report(options.from_report);
  if (options.require_hashes) require_hashes(result.report);

  result.dest = fs::absolute(options.dest).lexically_normal();
  const auto lock = net::lock_download_directory(
      result.dest, [&](const std::string& line) { reporter.on_warning(line); });
  result.batch = download_report_wheels(result.report, result.dest, options.download,
                                        options.selection, reporter);
  result.warnings = reporter.warnings();
  if (!result.batch.failures.empty()) result.failure = net::combined_failure(result.batch);
  return result;
}

}  // namespace wheelmod::operations
