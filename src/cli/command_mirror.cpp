// `wheelmod mirror SPEC.yaml --dest DIR`: an offline copy of the slice of a
// wheel index the spec selects, kept in sync incrementally, served as a
// static PEP 503 tree (with PEP 658 metadata) to wheelmod, pip and
// EasyBuild alike; --dry-run shows the plan, --prune drops what the spec no
// longer selects, --verify [--repair] re-hashes what is on disk.
#include <chrono>
#include <memory>
#include <ostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/progress.hpp"
#include "cli/selection.hpp"
#include "core/errors.hpp"
#include "mirror/spec.hpp"
#include "mirror/sync.hpp"

namespace wheelmod::cli {

namespace {

namespace fs = std::filesystem;

struct MirrorCommandOptions {
  std::string spec;
  std::string dest;
  bool dry_run = false;
  bool prune = false;
  bool verify = false;
  bool repair = false;
  std::string eb_sourcepath;
  std::vector<std::string> eb_names;
  DownloadSettings download;
  OutputFormat format = OutputFormat::text;
};

nlohmann::json to_json(const mirror::MirrorReport& report, mirror::MirrorMode mode) {
  nlohmann::json changes = nlohmann::json::array();
  for (const auto& change : report.changes) {
    nlohmann::json item{{"action", std::string(mirror::change_text(change.kind))},
                        {"file", change.filename},
                        {"project", change.project}};
    item["size"] = change.size ? nlohmann::json(*change.size) : nlohmann::json(nullptr);
    if (!change.detail.empty()) item["detail"] = change.detail;
    changes.push_back(std::move(item));
  }
  nlohmann::json totals;
  for (const auto kind :
       {mirror::ChangeKind::add, mirror::ChangeKind::keep, mirror::ChangeKind::stale,
        mirror::ChangeKind::remove, mirror::ChangeKind::conflict, mirror::ChangeKind::corrupt,
        mirror::ChangeKind::repaired})
    totals[std::string(mirror::change_text(kind))] = {{"files", report.count(kind)},
                                                      {"bytes", report.bytes(kind)}};
  return {{"schema_version", 1},
          {"mode", mode == mirror::MirrorMode::dry_run  ? "dry-run"
                   : mode == mirror::MirrorMode::verify ? "verify"
                                                        : "sync"},
          {"variants", report.variants},
          {"files", changes},
          {"totals", totals},
          {"notes", report.notes},
          {"downloads", report.downloads},
          {"downloaded_bytes", report.downloaded_bytes},
          {"received_bytes", report.received},
          {"pages_written", report.pages_written},
          {"index_requests", report.page_requests},
          {"index_not_modified", report.pages_not_modified},
          {"metadata_fetched", report.metadata_fetched}};
}

void render_text(const mirror::MirrorReport& report, mirror::MirrorMode mode, std::ostream& out) {
  for (const auto& change : report.changes) {
    if (change.kind == mirror::ChangeKind::keep) continue;  // the totals say how many
    out << mirror::change_text(change.kind) << "  " << change.filename;
    if (change.size) out << "  (" << format_bytes(*change.size) << ")";
    if (!change.detail.empty()) out << "\n    " << change.detail;
    out << "\n";
  }
  for (const auto& note : report.notes) out << "note: " << note << "\n";
  out << (mode == mirror::MirrorMode::dry_run ? "plan: " : "mirror: ");
  bool first = true;
  for (const auto kind :
       {mirror::ChangeKind::add, mirror::ChangeKind::keep, mirror::ChangeKind::stale,
        mirror::ChangeKind::remove, mirror::ChangeKind::conflict, mirror::ChangeKind::corrupt,
        mirror::ChangeKind::repaired}) {
    const auto count = report.count(kind);
    if (count == 0 && kind != mirror::ChangeKind::add && kind != mirror::ChangeKind::keep) continue;
    out << (first ? "" : ", ") << count << " to " << mirror::change_text(kind) << " ("
        << format_bytes(report.bytes(kind)) << ")";
    first = false;
  }
  out << "\n";
  if (mode != mirror::MirrorMode::dry_run)
    out << "downloaded " << report.downloads << " files (" << format_bytes(report.downloaded_bytes)
        << "), " << report.pages_written << " index pages written\n";
}

void run_mirror_command(const MirrorCommandOptions& options, CommandContext& context) {
  if (options.repair && !options.verify)
    throw UsageError("--repair", "only with --verify",
                     "wheelmod mirror SPEC --dest DIR --verify --repair");
  if (options.download.jobs == 0 || options.download.jobs > 64)
    throw UsageError("--jobs " + std::to_string(options.download.jobs), "must be between 1 and 64");
  const auto spec = mirror::load_spec(options.spec);
  mirror::MirrorOptions run;
  run.dest = fs::absolute(options.dest).lexically_normal();
  run.mode = options.verify    ? mirror::MirrorMode::verify
             : options.dry_run ? mirror::MirrorMode::dry_run
                               : mirror::MirrorMode::sync;
  run.prune = options.prune;
  run.repair = options.repair;
  run.download.jobs = options.download.jobs;
  run.download.attempts = options.download.retries + 1;
  run.download.stall_timeout = std::chrono::seconds(options.download.stall_timeout);
  run.download.cacert = options.download.cacert;
  run.fetcher.cacert = options.download.cacert;
  if (!options.eb_sourcepath.empty()) run.eb_sourcepath = fs::absolute(options.eb_sourcepath);
  if (!options.eb_names.empty()) run.eb_names = options.eb_names;

  auto reporter = make_stderr_reporter(context.global.verbosity);
  const auto report = mirror::run_mirror(spec, run, *reporter);
  if (options.format == OutputFormat::json)
    context.out << to_json(report, run.mode).dump(2) << '\n';
  else
    render_text(report, run.mode, context.out);

  if (!report.failures.empty()) {
    net::DownloadBatch batch;
    batch.failures = report.failures;
    throw net::combined_failure(batch);
  }
  if (const auto conflicts = report.count(mirror::ChangeKind::conflict); conflicts > 0)
    throw IntegrityError(
        run.dest.string(),
        std::to_string(conflicts) + " upstream files changed their sha256 under the same name",
        "the mirrored files were kept; compare them with the new bytes under "
        ".wheelmod/conflicts/ and remove the old file from the mirror (and its "
        "manifest entry) only once you trust the new one");
  const auto corrupt = report.count(mirror::ChangeKind::corrupt);
  if (corrupt > report.count(mirror::ChangeKind::repaired))
    throw IntegrityError(run.dest.string(), std::to_string(corrupt) + " stored files are corrupt",
                         "run again with --verify --repair to fetch them again");
}

}  // namespace

CommandRunner add_mirror_command(CLI::App& app) {
  auto options = std::make_shared<MirrorCommandOptions>();
  auto* sub = app.add_subcommand(
      "mirror",
      "Copy the slice of an index a YAML spec selects into a static PEP 503 tree, "
      "incrementally, verified");
  sub->add_option("spec", options->spec, "The mirror spec (YAML; docs/mirror.md)")->required();
  sub->add_option("--dest", options->dest, "The mirror directory")->required();
  sub->add_flag("--dry-run", options->dry_run,
                "Print the plan (files to add, keep, remove, with sizes); change nothing");
  sub->add_flag("--prune", options->prune, "Remove stored files the spec no longer selects");
  sub->add_flag("--verify", options->verify,
                "Re-hash every stored file against the manifest instead of syncing");
  sub->add_flag("--repair", options->repair, "With --verify: fetch corrupt files again");
  sub->add_option("--eb-sourcepath", options->eb_sourcepath,
                  "Also link the wheels into an EasyBuild sourcepath "
                  "(<dir>/<letter>/<Name>/extensions/<file>)");
  sub->add_option("--eb-name", options->eb_names,
                  "Easyconfig names for --eb-sourcepath (repeatable; default: PyTorch and "
                  "PyTorch-bundle)");
  add_download_options(*sub, options->download);
  add_format_option(*sub, options->format);
  return [options](CommandContext& context) { run_mirror_command(*options, context); };
}

}  // namespace wheelmod::cli
