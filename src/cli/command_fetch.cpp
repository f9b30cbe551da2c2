// `wheelmod fetch`: the wheels a resolution chose (or a reviewed JSON
// report lists), downloaded into --dest in parallel, verified against the
// index's SHA-256 while they arrive, resumable, and shared through the
// content-addressed cache.
#include <fstream>
#include <memory>
#include <mutex>
#include <ostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/selection.hpp"
#include "core/dir_lock.hpp"
#include "core/errors.hpp"
#include "net/download.hpp"

namespace wheelmod::cli {

namespace {

namespace fs = std::filesystem;

struct FetchOptions {
  SelectionOptions selection;
  std::string from_report;
  std::string dest;
  DownloadSettings download;
  bool require_hashes = false;
  OutputFormat format = OutputFormat::text;
};

/// Passes events on, and keeps the warnings for the JSON output.
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
  void on_warning(std::string_view message) override {
    {
      const std::lock_guard lock(m_mutex);
      m_warnings.emplace_back(message);
    }
    m_next.on_warning(message);
  }
  [[nodiscard]] const std::vector<std::string>& warnings() const { return m_warnings; }

 private:
  Reporter& m_next;
  std::mutex m_mutex;
  std::vector<std::string> m_warnings;
};

resolve::ResolveReport read_report(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw UsageError("--from-report " + path, "cannot read the file",
                     "write it with `wheelmod resolve ... --format json > FILE`");
  const auto document = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
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

nlohmann::json to_json(const resolve::ResolveReport& report, const fs::path& dest,
                       const net::DownloadBatch& batch, const std::vector<std::string>& warnings) {
  using nlohmann::json;
  json files = json::array();
  for (std::size_t i = 0; i < report.wheels.size(); ++i) {
    const auto& wheel = report.wheels[i];
    const auto& result = batch.results[i];
    json file{{"name", wheel.name},
              {"version", wheel.version},
              {"filename", wheel.filename},
              {"url", mask_credentials(wheel.url)},
              {"requested", wheel.requested}};
    if (!result) {
      file["outcome"] = "failed";
      file["path"] = nullptr;
      file["sha256"] = wheel.sha256 ? json(*wheel.sha256) : json(nullptr);
      file["sha256_source"] = wheel.sha256 ? json("index") : json(nullptr);
      files.push_back(file);
      continue;
    }
    file["outcome"] = std::string(net::outcome_text(result->outcome));
    file["path"] = result->path.string();
    file["sha256"] = result->sha256;
    file["sha256_source"] = result->sha256_from_index ? "index" : "computed";
    file["size"] = result->size;
    file["received"] = result->received;
    file["resumed_from"] = result->resumed_from ? json(*result->resumed_from) : json(nullptr);
    file["attempts"] = result->attempts;
    files.push_back(file);
  }
  json failures = json::array();
  for (const auto& failure : batch.failures)
    failures.push_back(
        {{"subject", failure.subject()}, {"cause", failure.cause()}, {"hint", failure.hint()}});
  return json{{"schema_version", 1},  {"dest", dest.string()},      {"files", files},
              {"failures", failures}, {"received", batch.received}, {"warnings", warnings}};
}

std::string render_text(const resolve::ResolveReport& report, const net::DownloadBatch& batch) {
  std::string out;
  for (std::size_t i = 0; i < report.wheels.size(); ++i) {
    const auto& result = batch.results[i];
    if (!result) continue;
    out += std::string(net::outcome_text(result->outcome)) + "  " + report.wheels[i].filename +
           "  sha256:" + result->sha256 + (result->sha256_from_index ? "" : " (computed)") + "\n";
  }
  return out;
}

void run_fetch(const FetchOptions& options, CommandContext& context) {
  if (options.from_report.empty() == options.selection.specs.empty())
    throw UsageError("fetch",
                     options.from_report.empty() ? "nothing to fetch: give SPEC... or --from-report"
                                                 : "give SPEC... or --from-report, not both",
                     "e.g. `wheelmod fetch torch==2.6.0 --toolchain foss-2024a --dest DIR`, or "
                     "`wheelmod fetch --from-report report.json --dest DIR`");
  if (options.download.jobs == 0 || options.download.jobs > 64)
    throw UsageError("--jobs " + std::to_string(options.download.jobs), "must be between 1 and 64");
  auto stderr_reporter = make_stderr_reporter(context.global.verbosity);
  WarningRecorder reporter(*stderr_reporter);
  const auto report = options.from_report.empty()
                          ? resolve_selection(options.selection, context, reporter)
                          : read_report(options.from_report);
  if (options.require_hashes) require_hashes(report);

  const fs::path dest = fs::absolute(options.dest).lexically_normal();
  // Two fetches into one directory would write the same .part files.
  const auto lock = DirectoryLock::acquire(
      dest, ".wheelmod-fetch.lock", [&](const std::string& line) { reporter.on_warning(line); });

  const auto batch =
      download_report_wheels(report, dest, options.download, options.selection.cache_dir, reporter);

  if (options.format == OutputFormat::json)
    context.out << to_json(report, dest, batch, reporter.warnings()).dump(2) << '\n';
  else
    context.out << render_text(report, batch);
  if (context.global.verbosity != Verbosity::quiet)
    context.err << "fetch: " << (batch.results.size() - batch.failures.size()) << " of "
                << batch.results.size() << " files in " << dest.string() << ", "
                << format_bytes(batch.received) << " received\n";
  if (!batch.failures.empty()) throw net::combined_failure(batch);
}

}  // namespace

CommandRunner add_fetch_command(CLI::App& app) {
  auto options = std::make_shared<FetchOptions>();
  auto* sub = app.add_subcommand(
      "fetch",
      "Download the wheels a resolution chooses (or a JSON report lists) into --dest: in "
      "parallel, SHA-256 verified while they arrive, resumable, through the wheel cache");
  add_selection_options(*sub, options->selection, SpecArity::optional);
  sub->add_option("--from-report", options->from_report,
                  "Fetch exactly the wheels of a `wheelmod resolve --format json` report");
  sub->add_option("--dest", options->dest, "Directory for the wheels (created when missing)")
      ->required();
  add_download_options(*sub, options->download);
  sub->add_flag("--require-hashes", options->require_hashes,
                "Refuse (exit 5) when the index gives no SHA-256 for a wheel");
  add_format_option(*sub, options->format);
  return [options](CommandContext& context) { run_fetch(*options, context); };
}

}  // namespace wheelmod::cli
