// `wheelmod easyconfig`: the options of operations::easyconfig, and what it
// wrote (with the digests it computed and what the maintainer must add) as
// text or JSON.
#include <map>
#include <memory>
#include <ostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "operations/easyconfig.hpp"
#include "selection.hpp"
#include "terminal_stream.hpp"

namespace wheelmod::cli {

namespace {

struct EasyconfigCommand {
  operations::EasyconfigOptions options;
  OutputFormat format = OutputFormat::text;
};

nlohmann::json to_json(const operations::EasyconfigResult& result) {
  using nlohmann::json;
  json files = json::array();
  for (const auto& item : result.written)
    files.push_back({{"path", item.path.string()},
                     {"name", item.name},
                     {"version", item.version},
                     {"versionsuffix", item.versionsuffix},
                     {"toolchain", item.toolchain}});
  json to_add = json::array();
  for (const auto& item : result.to_add)
    to_add.push_back({{"subject", item.subject}, {"reason", item.reason}});
  json hashes = json::array();
  for (const auto& [filename, sha256] : result.computed_sha256)
    hashes.push_back({{"filename", filename}, {"sha256", sha256}});
  return json{{"schema_version", 1},       {"output_dir", result.output_dir.string()},
              {"variant", result.variant}, {"written", files},
              {"computed_sha256", hashes}, {"to_add", to_add}};
}

std::string render_text(const operations::EasyconfigResult& result) {
  std::string out;
  for (const auto& item : result.written) out += "wrote   " + item.path.string() + "\n";
  for (const auto& [filename, sha256] : result.computed_sha256)
    out += "sha256  " + filename + ": " + sha256 + " (computed: the index gives none)\n";
  for (const auto& item : result.to_add)
    out += "to add  " + item.subject + ": " + item.reason + "\n";
  return out;
}

}  // namespace

CommandRunner add_easyconfig_command(CLI::App& app) {
  auto command = std::make_shared<EasyconfigCommand>();
  auto& options = command->options;
  auto* sub = app.add_subcommand(
      "easyconfig",
      "Write Stage-1 EasyBuild easyconfigs (PythonBundles of the official wheels) for a toolchain "
      "and accelerator, for x86_64 and aarch64, every wheel with its sha256");
  add_selection_options(*sub, options.selection, SpecArity::required);
  sub->get_option("--arch")->description(
      "Target architectures, comma-separated (default: x86_64,aarch64)");
  sub->get_option("--glibc")->description(
      "Target glibc 2.NN (default: 2.28, RHEL 8 and manylinux_2_28)");
  add_download_options(*sub, options.download);
  add_site_modules_options(*sub, options.site);
  sub->add_option("--output-dir", options.output_dir,
                  "Directory for the .eb files (created when missing)")
      ->required();
  sub->add_option(
      "--templates", options.templates,
      "Directory with site templates (easyconfig.eb.mustache) used before the shipped ones");
  sub->add_option("--metadata", options.metadata,
                  "strip: postinstallcmds delete the nvidia-* requirements modules satisfy from "
                  "the installed METADATA, as `wheelmod install` does; keep: they stay, met by a "
                  "CUDA-wheel-bundle of dummy packages, as easybuild-easyconfigs does (default: "
                  "strip)")
      ->option_text("strip|keep")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, easybuild::MetadataPolicy>{
              {"strip", easybuild::MetadataPolicy::strip},
              {"keep", easybuild::MetadataPolicy::keep}},
          CLI::ignore_case));
  sub->add_flag("--with-relink", options.with_relink,
                "Add postinstallcmds running `wheelmod relink` and `wheelmod check` (wheelmod as a "
                "build dependency)");
  add_rocm_libraries_option(
      *sub, options.rocm_libraries,
      "ROCm wheels, with --with-relink and a generation whose ROCm stack is the wheel's ROCm "
      "major.minor: auto and modules make the ROCm modules providing the libraries the wheel "
      "bundles dependencies (versionsuffix -ROCm-<stack>-whl) and relink removes the wheel's "
      "copies; modules is an error where that cannot be; bundled keeps the wheel's own");
  sub->add_option(
      "--versionsuffix", options.versionsuffix,
      "versionsuffix of the PyTorch easyconfigs (default: -whl, -CUDA-%(cudaver)s-whl, "
      "-ROCm-<version>-whl, the ROCm modules' version where the libraries come from them)");
  sub->add_flag("--force", options.force, "Replace .eb files that exist");
  sub->add_option("--source-urls", options.source_urls,
                  "What source_urls name: upstream, each wheel's public https origin (a wheelmod "
                  "mirror's manifest records it); index, where the wheel was found; automatic, "
                  "upstream when the index is a wheelmod mirror (default). Wheels on PyPI get "
                  "EasyBuild's PyPI default in every mode")
      ->option_text("automatic|upstream|index")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, operations::SourceUrls>{
              {"automatic", operations::SourceUrls::automatic},
              {"upstream", operations::SourceUrls::upstream},
              {"index", operations::SourceUrls::index}},
          CLI::ignore_case));
  sub->add_flag("--write-unmet", options.write_unmet,
                "Write the files also when a requirement of the wheels is unmet (listed as "
                "`# wheelmod: to add`; EasyBuild's pip check fails until it is added) instead of "
                "exiting with 3");
  add_format_option(*sub, command->format);
  sub->footer(
      "Example: wheelmod easyconfig torch==2.6.0 torchvision torchaudio --toolchain foss-2024a "
      "--accelerator cuda --output-dir easyconfigs");
  return [command](CommandContext& context) {
    auto reporter = make_stderr_reporter(context.global.verbosity);
    const auto result = operations::easyconfig(command->options, *reporter);
    if (command->format == OutputFormat::json)
      context.out << json_output(to_json(result));
    else
      context.out << render_text(result);
  };
}

}  // namespace wheelmod::cli
