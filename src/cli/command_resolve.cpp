// `wheelmod resolve`: the report of operations::resolve as text, Markdown
// or JSON.
#include <memory>
#include <ostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "operations/resolve.hpp"
#include "report_render.hpp"
#include "selection.hpp"
#include "terminal_stream.hpp"

namespace wheelmod::cli {

namespace {

struct ResolveCommand {
  operations::Selection selection;
  operations::SiteModules site;
  OutputFormat format = OutputFormat::text;
};

void run_resolve(const ResolveCommand& command, CommandContext& context) {
  auto reporter = make_stderr_reporter(context.global.verbosity);
  const auto report = operations::resolve(command.selection, *reporter, command.site);
  switch (command.format) {
    case OutputFormat::json:
      context.out << json_output(resolve::to_json(report));
      break;
    case OutputFormat::markdown:
      context.out << render_markdown(report);
      break;
    case OutputFormat::text:
      context.out << render_text(report);
      break;
  }
}

}  // namespace

CommandRunner add_resolve_command(CLI::App& app) {
  auto command = std::make_shared<ResolveCommand>();
  auto* sub = app.add_subcommand(
      "resolve",
      "Show which wheels a toolchain and accelerator get, from where, with which hashes, what "
      "they need and which EasyBuild modules provide it (downloads no wheel)");
  add_selection_options(*sub, command->selection, SpecArity::required);
  add_format_option(*sub, command->format, MarkdownOutput::yes);
  add_site_modules_options(*sub, command->site);
  sub->footer(
      "Example: wheelmod resolve torch==2.6.0 torchvision --toolchain foss-2024a --accelerator "
      "cuda");
  return [command](CommandContext& context) { run_resolve(*command, context); };
}

}  // namespace wheelmod::cli
