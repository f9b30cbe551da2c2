// `wheelmod relink PREFIX`: the options of operations::relink, and each
// file's old and new search path as text or JSON.
#include <map>
#include <memory>
#include <ostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "core/strings.hpp"
#include "core/timings.hpp"
#include "easybuild/library_map.hpp"
#include "operations/relink.hpp"
#include "selection.hpp"
#include "terminal_stream.hpp"

namespace wheelmod::cli {

namespace {

struct RelinkCommand {
  operations::RelinkOptions options;
  OutputFormat format = OutputFormat::text;
};

std::string_view method_text(elf::EditMethod method) {
  switch (method) {
    case elf::EditMethod::unchanged:
      return "unchanged";
    case elf::EditMethod::in_place:
      return "in place";
    case elf::EditMethod::appended:
      return "appended";
    case elf::EditMethod::patchelf:
      return "patchelf";
  }
  return "unchanged";
}

nlohmann::json to_json(const prefix::RelinkReport& report, bool dry_run) {
  using nlohmann::json;
  json files = json::array();
  for (const auto& file : report.files) {
    json entries = json::array();
    for (const auto& entry : file.plan.entries)
      entries.push_back({{"entry", entry.entry},
                         {"action", std::string(easybuild::action_text(entry.action))},
                         {"replacement", join(entry.replacements, ":")},
                         {"replacements", entry.replacements},
                         {"provider", entry.provider},
                         {"note", entry.note}});
    files.push_back({{"file", file.file.string()},
                     {"old", file.edit.old_value ? json(*file.edit.old_value) : json(nullptr)},
                     {"new", file.plan.new_value},
                     {"tag", file.edit.new_tag == elf::SearchPathTag::rpath ? "RPATH" : "RUNPATH"},
                     {"method", std::string(method_text(file.edit.method))},
                     {"entries", entries}});
  }
  return json{{"schema_version", 1}, {"prefix", report.prefix.string()},
              {"dry_run", dry_run},  {"elf_files", report.elf_files},
              {"files", files},      {"rocm_removed", report.rocm_removed}};
}

std::string render_text(const prefix::RelinkReport& report, bool dry_run) {
  std::string out;
  std::size_t changed = 0;
  for (const auto& file : report.files) {
    if (file.edit.method == elf::EditMethod::unchanged) continue;
    ++changed;
    out += file.file.string() + " (" + std::string(method_text(file.edit.method)) + ")\n";
    out += "  old: " + file.edit.old_value.value_or("") + "\n";
    out += "  new: " + file.plan.new_value + "\n";
  }
  out += std::to_string(report.elf_files) + " ELF files, " + std::to_string(report.files.size()) +
         " with a search path, " + std::to_string(changed) +
         (dry_run ? " would change\n" : " changed\n");
  if (!report.rocm_removed.empty())
    out += std::to_string(report.rocm_removed.size()) +
           " bundled ROCm files removed (the ROCm modules provide them)\n";
  return out;
}

}  // namespace

CommandRunner add_relink_command(CLI::App& app) {
  auto command = std::make_shared<RelinkCommand>();
  auto& options = command->options;
  auto* sub = app.add_subcommand(
      "relink",
      "Re-point the RPATH of every library in an installed prefix from the nvidia-* wheel "
      "directories at the site's EasyBuild CUDA, cuDNN, NCCL modules");
  sub->add_option("PREFIX", options.prefix, "The installation prefix")->required();
  sub->add_option("--toolchain", options.toolchain,
                  "EasyBuild toolchain the prefix belongs to, e.g. foss-2024a (default: the one "
                  "its wheelmod provenance records)");
  sub->add_option("--eb-installpath", options.eb_installpath,
                  "EasyBuild installpath holding software/NAME/VERSION (default: EasyBuild's "
                  "configuration, and the EBROOT* variables of loaded modules)");
  sub->add_option("--prefer-module", options.modules,
                  "Prefer this module where several provide a library (repeatable), e.g. "
                  "cuDNN/9.5.1.17-CUDA-12.6.0")
      ->check(module_name_validator());
  sub->add_option("--config", options.config_dir,
                  "Site directory with toolchains.yaml / eb-dependencies.yaml overrides");
  sub->add_flag("--runpath", options.runpath,
                "Write DT_RUNPATH instead of DT_RPATH (EasyBuild's RPATH check expects RPATH)");
  add_rocm_libraries_option(
      *sub, options.rocm_libraries,
      "ROCm builds of torch: auto re-points the bundled libraries an install took from the ROCm "
      "modules; modules also removes the bundled copies the modules provide (with their data and "
      "RECORD rows); bundled leaves them");
  sub->add_flag("--dry-run", options.dry_run, "Show old -> new for each file, change nothing");
  sub->add_option("--patchelf", options.patchelf,
                  "patchelf program, used when a new path does not fit in place in a program "
                  "(or an unusual library layout)");
  add_format_option(*sub, command->format);
  sub->footer(
      "Example: wheelmod relink /apps/eb/software/PyTorch/2.6.0-foss-2024a-CUDA-12.6.0-whl "
      "--dry-run");
  return [command](CommandContext& context) {
    auto reporter = make_stderr_reporter(context.global.verbosity);
    const auto report = operations::relink(command->options, *reporter);
    const bool dry_run = command->options.dry_run;
    const timings::Scope phase("output");
    context.out << (command->format == OutputFormat::json ? json_output(to_json(report, dry_run))
                                                          : render_text(report, dry_run));
  };
}

}  // namespace wheelmod::cli
