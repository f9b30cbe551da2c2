// `wheelmod swap --modulepath DIR --name PyTorch/<version> --to PyTorch/<build>`
// (or --rollback): the options of operations::swap, the dependents'
// verdicts, and which build the canonical module loads now.
#include <memory>
#include <ostream>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "operations/swap.hpp"

namespace wheelmod::cli {

namespace {

void print_verdicts(const swap::SwapcheckReport& report, std::ostream& out) {
  for (const auto& d : report.dependents) {
    out << "  " << swap::verdict_text(d.verdict) << (d.fixed ? " (RPATH fixed)" : "") << "  "
        << (d.projects.empty() ? d.prefix.string() : d.projects.front()) << "\n";
    for (const auto& r : d.reasons)
      out << "      " << r.kind << ": " << swap::describe(r, 3) << "\n";
  }
}

void run_swap(const operations::SwapOptions& options, CommandContext& context) {
  const auto result = operations::swap(options);
  switch (result.outcome) {
    case operations::SwapOutcome::unchanged:
      context.out << options.name << " already loads " << result.target << "\n";
      return;
    case operations::SwapOutcome::refused:
      print_verdicts(*result.report, context.out);
      throw *result.failure;
    case operations::SwapOutcome::swapped:
      break;
  }
  if (result.report) {
    context.out << "dependents of " << options.name << " (" << result.report->dependents.size()
                << "):\n";
    print_verdicts(*result.report, context.out);
  }
  context.out << options.name << " now loads " << result.target
              << (result.previous ? " (was " + *result.previous + ")" : "") << "\n";
}

}  // namespace

CommandRunner add_swap_command(CLI::App& app) {
  auto options = std::make_shared<operations::SwapOptions>();
  auto* sub = app.add_subcommand(
      "swap", "Point the canonical PyTorch module at another build, if its dependents survive");
  sub->add_option("--modulepath", options->modulepath, "Module tree holding all/<Name>/...")
      ->required();
  sub->add_option("--name", options->name, "The canonical module dependents load, Name/version")
      ->required();
  sub->add_option("--to", options->to, "The module of the build to switch to (Name/version)");
  sub->add_flag("--rollback", options->rollback,
                "Switch back to the build in use before the last swap");
  sub->add_flag("--force", options->force, "Swap even when dependents would break");
  sub->add_option("--dependents", options->dependents,
                  "Prefixes or a software/ tree to check (default: the modules that name --name)");
  sub->footer(
      "Example: wheelmod swap --modulepath /apps/eb/modules --name PyTorch/2.6.0 --to "
      "PyTorch/2.6.0-foss-2024a-CUDA-12.6.0");
  return [options](CommandContext& context) { run_swap(*options, context); };
}

}  // namespace wheelmod::cli
