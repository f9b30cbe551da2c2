// `wheelmod swap --modulepath DIR --name PyTorch/<version> --to PyTorch/<build>`:
// switch the canonical PyTorch module to another build, after swapcheck has
// found that every module depending on it survives (or --force), applying
// the RPATH fixes; `--rollback` returns to the previous build.
#include <memory>
#include <ostream>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "core/errors.hpp"
#include "swap/module_alias.hpp"
#include "swap/swapcheck.hpp"

namespace wheelmod::cli {

namespace {

namespace fs = std::filesystem;

struct SwapOptions {
  std::string modulepath;
  std::string name;
  std::string to;
  bool rollback = false;
  bool force = false;
  std::vector<std::string> dependents;
};

void print_verdicts(const swap::SwapcheckReport& report, std::ostream& out) {
  for (const auto& d : report.dependents) {
    out << "  " << swap::verdict_text(d.verdict) << (d.fixed ? " (RPATH fixed)" : "") << "  "
        << (d.projects.empty() ? d.prefix.string() : d.projects.front()) << "\n";
    for (const auto& r : d.reasons)
      out << "      " << r.kind << ": " << swap::describe(r, 3) << "\n";
  }
}

void run_swap(const SwapOptions& options, CommandContext& context) {
  if (options.rollback == !options.to.empty())
    throw UsageError("wheelmod swap", "give either --to MODULE or --rollback",
                     "wheelmod swap --modulepath DIR --name PyTorch/VERSION --to PyTorch/BUILD");
  const fs::path modulepath = fs::absolute(options.modulepath);
  const auto alias = swap::read_alias(modulepath, options.name);
  std::string target = options.to;
  if (options.rollback) {
    if (!alias.previous)
      throw UsageError(options.name, "no earlier build recorded to roll back to",
                       "wheelmod swap records the build it replaces; swap at least once first");
    target = *alias.previous;
  }
  const auto target_root = swap::module_root(swap::module_file(modulepath, target));
  if (alias.target && *alias.target == target) {
    context.out << options.name << " already loads " << target << "\n";
    return;
  }
  if (alias.target) {
    const auto current_root = swap::module_root(swap::module_file(modulepath, *alias.target));
    std::vector<fs::path> roots(options.dependents.begin(), options.dependents.end());
    const auto dependents = roots.empty()
                                ? swap::dependents_of(modulepath, options.name)
                                : swap::find_dependents(roots, {current_root, target_root});
    auto report = swap::swapcheck(current_root, target_root, dependents, swap::FixRpath::no);
    const bool breaks = std::ranges::any_of(report.dependents, [](const swap::DependentResult& d) {
      return d.verdict == swap::Verdict::breaks;
    });
    if (breaks && !options.force) {
      print_verdicts(report, context.out);
      throw CheckFailedError(options.name,
                             "some dependents would break on " + target + "; nothing changed",
                             "rebuild them on the new torch, or pass --force to swap anyway");
    }
    report = swap::swapcheck(current_root, target_root, dependents, swap::FixRpath::yes);
    context.out << "dependents of " << options.name << " (" << report.dependents.size() << "):\n";
    print_verdicts(report, context.out);
  }
  swap::write_alias(alias, target);
  context.out << options.name << " now loads " << target
              << (alias.target ? " (was " + *alias.target + ")" : "") << "\n";
}

}  // namespace

CommandRunner add_swap_command(CLI::App& app) {
  auto options = std::make_shared<SwapOptions>();
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
  return [options](CommandContext& context) { run_swap(*options, context); };
}

}  // namespace wheelmod::cli
