// `wheelmod list` and `wheelmod uninstall`: the installations wheelmod made under the software
// path, and removing one with its module file.
#include <memory>
#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "operations/lifecycle.hpp"
#include "progress.hpp"
#include "terminal_stream.hpp"

namespace wheelmod::cli {

namespace {

struct ListCommand {
  std::string eb_installpath;
  OutputFormat format = OutputFormat::text;
};

void print_list(const ListCommand& command, CommandContext& context) {
  auto reporter = make_stderr_reporter(context.global.verbosity);
  const auto installations = operations::list_installations(command.eb_installpath, *reporter);
  if (command.format == OutputFormat::json) {
    auto doc = nlohmann::json::array();
    for (const auto& item : installations)
      doc.push_back({{"name", item.name},
                     {"prefix", item.prefix.string()},
                     {"toolchain", item.toolchain},
                     {"accelerator", item.accelerator},
                     {"torch", item.torch},
                     {"index", item.index},
                     {"installed_at", item.installed_at}});
    context.out << json_output(doc);
    return;
  }
  for (const auto& item : installations)
    context.out << fmt::format("{}  torch {}  {}  {}  {}  {}\n", item.name, item.torch,
                               item.toolchain, item.accelerator, item.installed_at, item.index);
}

struct UninstallCommand {
  operations::UninstallOptions options;
};

void run_uninstall(const UninstallCommand& command, CommandContext& context) {
  auto reporter = make_stderr_reporter(context.global.verbosity);
  const auto result = operations::uninstall(command.options, *reporter);
  for (const auto& file : result.module_files) context.out << "removed " << file.string() << '\n';
  context.out << "removed " << result.prefix.string() << '\n';
}

}  // namespace

CommandRunner add_list_command(CLI::App& app) {
  auto command = std::make_shared<ListCommand>();
  auto* sub =
      app.add_subcommand("list",
                         "List the installations wheelmod made under the software path, from their "
                         "provenance: toolchain, accelerator, torch version, date, index");
  sub->add_option("--eb-installpath", command->eb_installpath,
                  "EasyBuild installpath (default: EasyBuild's configuration)");
  add_format_option(*sub, command->format);
  sub->footer("Example: EASYBUILD_INSTALLPATH=/apps/eb wheelmod list");
  return [command](CommandContext& context) { print_list(*command, context); };
}

CommandRunner add_uninstall_command(CLI::App& app) {
  auto command = std::make_shared<UninstallCommand>();
  auto& options = command->options;
  auto* sub = app.add_subcommand(
      "uninstall",
      "Remove an installation wheelmod made, with its module file and moduleclass "
      "link, under its locks; refused while other modules load it");
  sub->add_option("TARGET", options.target,
                  "The prefix, or NAME/VERSION under the software path "
                  "(PyTorch/2.6.0-foss-2024a-CUDA-12.6.0-whl)")
      ->required();
  sub->add_option("--eb-installpath", options.eb_installpath,
                  "EasyBuild installpath (default: EasyBuild's configuration)");
  sub->add_option("--modulepath", options.modulepath,
                  "Module tree (default: EasyBuild's installpath-modules, else beside software/)");
  sub->add_flag("--force", options.force, "Also when other modules load it");
  sub->footer("Example: wheelmod uninstall PyTorch/2.6.0-foss-2024a-CUDA-12.6.0-whl");
  return [command](CommandContext& context) { run_uninstall(*command, context); };
}

}  // namespace wheelmod::cli
