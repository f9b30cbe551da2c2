// `wheelmod fetch`: what operations::fetch downloaded, as text or JSON, and
// a summary line on stderr.
#include <memory>
#include <ostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "core/url.hpp"
#include "operations/fetch.hpp"
#include "selection.hpp"
#include "terminal_stream.hpp"

namespace wheelmod::cli {

namespace {

struct FetchCommand {
  operations::FetchOptions options;
  OutputFormat format = OutputFormat::text;
};

nlohmann::json file_json(const resolve::ChosenWheel& wheel,
                         const std::optional<net::DownloadResult>& result) {
  using nlohmann::json;
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
    return file;
  }
  file["outcome"] = std::string(net::outcome_text(result->outcome));
  file["path"] = result->path.string();
  file["sha256"] = result->sha256;
  file["sha256_source"] = result->sha256_from_index ? "index" : "computed";
  file["size"] = result->size;
  file["received"] = result->received;
  file["resumed_from"] = result->resumed_from ? json(*result->resumed_from) : json(nullptr);
  file["attempts"] = result->attempts;
  return file;
}

nlohmann::json to_json(const operations::FetchResult& result) {
  using nlohmann::json;
  json files = json::array();
  for (std::size_t i = 0; i < result.report.wheels.size(); ++i)
    files.push_back(file_json(result.report.wheels[i], result.batch.results[i]));
  json failures = json::array();
  for (const auto& failure : result.batch.failures)
    failures.push_back(
        {{"subject", failure.subject()}, {"cause", failure.cause()}, {"hint", failure.hint()}});
  return json{
      {"schema_version", 1},  {"dest", result.dest.string()},      {"files", files},
      {"failures", failures}, {"received", result.batch.received}, {"warnings", result.warnings}};
}

std::string render_text(const operations::FetchResult& result) {
  std::string out;
  for (std::size_t i = 0; i < result.report.wheels.size(); ++i) {
    const auto& downloaded = result.batch.results[i];
    if (!downloaded) continue;
    out += std::string(net::outcome_text(downloaded->outcome)) + "  " +
           result.report.wheels[i].filename + "  sha256:" + downloaded->sha256 +
           (downloaded->sha256_from_index ? "" : " (computed)") + "\n";
  }
  return out;
}

void run_fetch(const FetchCommand& command, CommandContext& context) {
  auto reporter = make_stderr_reporter(context.global.verbosity);
  const auto result = operations::fetch(command.options, *reporter);
  if (command.format == OutputFormat::json)
    context.out << json_output(to_json(result));
  else
    context.out << render_text(result);
  const auto& batch = result.batch;
  if (context.global.verbosity != Verbosity::quiet)
    context.err << "fetch: " << (batch.results.size() - batch.failures.size()) << " of "
                << batch.results.size() << " files in " << result.dest.string() << ", "
                << format_bytes(batch.received) << " received\n";
  if (result.failure) throw *result.failure;
}

}  // namespace

CommandRunner add_fetch_command(CLI::App& app) {
  auto command = std::make_shared<FetchCommand>();
  auto& options = command->options;
  auto* sub = app.add_subcommand(
      "fetch",
      "Download the wheels a resolution chooses (or a JSON report lists) into --dest: in "
      "parallel, SHA-256 verified while they arrive, resumable, through the wheel cache");
  add_selection_options(*sub, options.selection, SpecArity::optional);
  sub->add_option("--from-report", options.from_report,
                  "Fetch exactly the wheels of a `wheelmod resolve --format json` report");
  sub->add_option("--dest", options.dest, "Directory for the wheels (created when missing)")
      ->required();
  add_download_options(*sub, options.download);
  sub->add_flag("--require-hashes", options.require_hashes,
                "Refuse (exit 5) when the index gives no SHA-256 for a wheel");
  add_format_option(*sub, command->format);
  sub->footer(
      "Example: wheelmod fetch torch==2.6.0 --toolchain foss-2024a --accelerator cuda --dest "
      "wheels");
  return [command](CommandContext& context) { run_fetch(*command, context); };
}

}  // namespace wheelmod::cli
