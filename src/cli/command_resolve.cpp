// `wheelmod resolve`: which wheels a toolchain and accelerator get, from
// where, with which hashes, what they need and which EasyBuild modules
// provide it — a dry run that downloads no wheel (pages and metadata only).
#include <memory>
#include <ostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/report_render.hpp"
#include "cli/selection.hpp"

namespace wheelmod::cli {

namespace {

struct ResolveOptions {
  SelectionOptions selection;
  OutputFormat format = OutputFormat::text;
};

void run_resolve(const ResolveOptions& options, CommandContext& context) {
  auto reporter = make_stderr_reporter(context.global.verbosity);
  const auto report = resolve_selection(options.selection, context, *reporter);
  switch (options.format) {
    case OutputFormat::json:
      context.out << resolve::to_json(report).dump(2) << '\n';
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
  auto options = std::make_shared<ResolveOptions>();
  auto* sub = app.add_subcommand(
      "resolve",
      "Show which wheels a toolchain and accelerator get, from where, with which hashes, what "
      "they need and which EasyBuild modules provide it (downloads no wheel)");
  add_selection_options(*sub, options->selection, SpecArity::required);
  add_format_option(*sub, options->format, MarkdownOutput::yes);
  return [options](CommandContext& context) { run_resolve(*options, context); };
}

}  // namespace wheelmod::cli
