// `wheelmod relink PREFIX`: the ELF files of an installed prefix get their
// search paths re-pointed at the site's EasyBuild CUDA / cuDNN / NCCL
// module directories, in place where the new path fits.
#include <memory>
#include <optional>
#include <ostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "core/dir_lock.hpp"
#include "core/errors.hpp"
#include "easybuild/config.hpp"
#include "prefix/relink.hpp"

namespace wheelmod::cli {

namespace {

struct RelinkCommandOptions {
  std::string prefix;
  std::string toolchain;
  std::string eb_installpath;
  std::vector<std::string> modules;
  std::string config_dir;
  std::string patchelf = "patchelf";
  bool runpath = false;
  bool dry_run = false;
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
                         {"replacement", entry.replacement},
                         {"provider", entry.provider},
                         {"note", entry.note}});
    files.push_back({{"file", file.file.string()},
                     {"old", file.edit.old_value ? json(*file.edit.old_value) : json(nullptr)},
                     {"new", file.plan.new_value},
                     {"tag", file.edit.new_tag == elf::SearchPathTag::rpath ? "RPATH" : "RUNPATH"},
                     {"method", std::string(method_text(file.edit.method))},
                     {"entries", entries}});
  }
  return json{{"schema_version", 1},
              {"prefix", report.prefix.string()},
              {"dry_run", dry_run},
              {"elf_files", report.elf_files},
              {"files", files}};
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
  return out;
}

void run_relink(const RelinkCommandOptions& options, CommandContext& context) {
  const auto config = easybuild::SiteConfig::load(
      easybuild::SiteConfig::default_dir(),
      options.config_dir.empty() ? std::nullopt
                                 : std::optional<std::filesystem::path>(options.config_dir));
  const auto* generation = config.find_generation(options.toolchain);
  if (generation == nullptr)
    throw UsageError("--toolchain " + options.toolchain, "unknown toolchain",
                     "give the toolchain the prefix was installed for, e.g. foss-2024a");
  prefix::RelinkOptions relink;
  relink.generation = generation;
  relink.modules = options.modules;
  relink.locator = easybuild::environment_locator(
      options.eb_installpath.empty()
          ? std::nullopt
          : std::optional<std::filesystem::path>(options.eb_installpath));
  relink.tag = options.runpath ? elf::SearchPathTag::runpath : elf::SearchPathTag::rpath;
  relink.dry_run = options.dry_run;
  relink.patchelf = options.patchelf;
  auto reporter = make_stderr_reporter(context.global.verbosity);
  // The lock `install` holds on this prefix (prefix/staging.cpp): a relink
  // waits for an install --force of the same prefix, or another relink,
  // whose temporary copies it would otherwise take for a killed run's.
  DirectoryLock lock;
  auto target = std::filesystem::absolute(options.prefix).lexically_normal();
  if (target.filename().empty()) target = target.parent_path();  // "p/"
  if (std::error_code error; !options.dry_run && std::filesystem::is_directory(target, error))
    lock = DirectoryLock::acquire(target.parent_path(),
                                  "." + target.filename().string() + ".wheelmod.lock",
                                  [&](const std::string& line) { reporter->on_warning(line); });
  const auto report = prefix::relink_prefix(options.prefix, relink, *reporter);
  if (options.format == OutputFormat::json)
    context.out << to_json(report, options.dry_run).dump(2) << '\n';
  else
    context.out << render_text(report, options.dry_run);
}

}  // namespace

CommandRunner add_relink_command(CLI::App& app) {
  auto options = std::make_shared<RelinkCommandOptions>();
  auto* sub = app.add_subcommand(
      "relink",
      "Re-point the RPATH of every library in an installed prefix from the nvidia-* wheel "
      "directories at the site's EasyBuild CUDA, cuDNN, NCCL modules");
  sub->add_option("PREFIX", options->prefix, "The installation prefix")->required();
  sub->add_option("--toolchain", options->toolchain,
                  "EasyBuild toolchain the prefix belongs to, e.g. foss-2024a")
      ->required();
  sub->add_option("--eb-installpath", options->eb_installpath,
                  "EasyBuild installpath holding software/NAME/VERSION (default: the EBROOT* "
                  "variables of loaded modules)");
  sub->add_option("--prefer-module", options->modules,
                  "Prefer this module where several provide a library (repeatable), e.g. "
                  "cuDNN/9.5.1.17-CUDA-12.6.0");
  sub->add_option("--config", options->config_dir,
                  "Site directory with toolchains.yaml / eb-dependencies.yaml overrides");
  sub->add_flag("--runpath", options->runpath,
                "Write DT_RUNPATH instead of DT_RPATH (EasyBuild's RPATH check expects RPATH)");
  sub->add_flag("--dry-run", options->dry_run, "Show old -> new for each file, change nothing");
  sub->add_option("--patchelf", options->patchelf,
                  "patchelf program, used when a new path does not fit in place in a program "
                  "(or an unusual library layout)");
  add_format_option(*sub, options->format);
  return [options](CommandContext& context) { run_relink(*options, context); };
}

}  // namespace wheelmod::cli
