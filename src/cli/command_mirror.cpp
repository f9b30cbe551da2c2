// `wheelmod mirror SPEC.yaml --dest DIR`: the options of operations::mirror,
// and the changes it made (or plans, or found) as text or JSON.
#include <memory>
#include <ostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "operations/mirror.hpp"
#include "progress.hpp"
#include "selection.hpp"
#include "terminal_stream.hpp"

namespace wheelmod::cli {

namespace {

struct MirrorCommand {
  operations::MirrorOptions options;
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

void run_mirror(const MirrorCommand& command, CommandContext& context) {
  auto reporter = make_stderr_reporter(context.global.verbosity);
  const auto result = operations::mirror(command.options, *reporter);
  if (command.format == OutputFormat::json)
    context.out << json_output(to_json(result.report, result.mode));
  else
    render_text(result.report, result.mode, context.out);
  if (result.failure) throw *result.failure;
}

}  // namespace

CommandRunner add_mirror_command(CLI::App& app) {
  auto command = std::make_shared<MirrorCommand>();
  auto& options = command->options;
  auto* sub = app.add_subcommand(
      "mirror",
      "Copy the slice of an index a YAML spec selects into a static PEP 503 tree, "
      "incrementally, verified");
  sub->add_option("spec", options.spec, "The mirror spec (YAML; docs/mirror.md)")->required();
  sub->add_option("--dest", options.dest, "The mirror directory")->required();
  sub->add_flag("--dry-run", options.dry_run,
                "Print the plan (files to add, keep, remove, with sizes); change nothing");
  sub->add_flag("--prune", options.prune, "Remove stored files the spec no longer selects");
  sub->add_flag("--verify", options.verify,
                "Re-hash every stored file against the manifest instead of syncing");
  sub->add_flag("--repair", options.repair, "With --verify: fetch corrupt files again");
  sub->add_option("--eb-sourcepath", options.eb_sourcepath,
                  "Also link the wheels into an EasyBuild sourcepath "
                  "(<dir>/<letter>/<Name>/extensions/<file>)");
  sub->add_option("--eb-name", options.eb_names,
                  "Easyconfig names for --eb-sourcepath (repeatable; default: PyTorch and "
                  "PyTorch-bundle)");
  add_download_options(*sub, options.download, WheelCache::unused);
  add_connection_options(*sub, options.connection);
  add_page_timeout_option(*sub, options.page_timeout);
  add_format_option(*sub, command->format);
  sub->footer("Example: wheelmod mirror mirror.yaml --dest /srv/pytorch-mirror");
  return [command](CommandContext& context) { run_mirror(*command, context); };
}

}  // namespace wheelmod::cli
