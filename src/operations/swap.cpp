#include "operations/swap.hpp"

#include <algorithm>

#include "operations/site.hpp"
#include "swap/module_alias.hpp"

namespace wheelmod::operations {

namespace fs = std::filesystem;

namespace {

// A directory as given, else an EasyBuild module name (PyTorch/2.6.0-foss-2024a-CUDA-12.6.0):
// its installation directory under the site's software path (EasyBuild names those as
// EasyBuildMNS names the module, whatever the naming scheme).
fs::path installation_of(const std::string& given, const char* option) {
  std::error_code error;
  if (fs::exists(given, error) || given.find('/') == std::string::npos ||
      fs::path(given).is_absolute())
    return fs::absolute(given).lexically_normal();
  const auto site = site_settings("");
  const auto directory = fs::path(site.software.value) / given;
  if (fs::is_directory(directory, error)) return directory;
  throw UsageError(std::string(option) + " " + given,
                   "neither a directory nor a module installed under " + site.software.value +
                       " (" + site.software.origin + ")",
                   "give the installation's prefix, or its module name with EASYBUILD_INSTALLPATH "
                   "(or --eb-installpath's site) set");
}

}  // namespace

SwapcheckResult swapcheck(const SwapcheckOptions& options) {
  const auto current = installation_of(options.current, "--current");
  const auto candidate = installation_of(options.candidate, "--candidate");
  const std::vector<fs::path> roots(options.dependents.begin(), options.dependents.end());
  const std::set<fs::path> skip{current, candidate};
  const auto dependents = swap::find_dependents(roots, skip);
  SwapcheckResult result{swap::swapcheck(current, candidate, dependents,
                                         options.fix ? swap::FixRpath::yes : swap::FixRpath::no),
                         std::nullopt};
  if (!result.report.ok())
    result.failure =
        CheckFailedError("swapcheck",
                         "some dependents would break, are broken now, cannot be judged, or "
                         "would load the old torch",
                         "see the reasons above; --fix re-points RPATH entries into the current "
                         "prefix for dependents that are otherwise compatible");
  return result;
}

SwapResult swap(const SwapOptions& options) {
  if (options.rollback == !options.to.empty())
    throw UsageError("wheelmod swap", "give either --to MODULE or --rollback",
                     "wheelmod swap --modulepath DIR --name PyTorch/VERSION --to PyTorch/BUILD");
  const fs::path modulepath = fs::absolute(options.modulepath);
  const auto alias = swap::read_alias(modulepath, options.name);
  SwapResult result;
  result.previous = alias.target;
  result.target = options.to;
  if (options.rollback) {
    if (!alias.previous)
      throw UsageError(options.name, "no earlier build recorded to roll back to",
                       "wheelmod swap records the build it replaces; swap at least once first");
    result.target = *alias.previous;
  }
  const auto target_root = swap::module_root(swap::module_file(modulepath, result.target));
  if (alias.target && *alias.target == result.target) return result;
  if (alias.target) {
    const auto current_root = swap::module_root(swap::module_file(modulepath, *alias.target));
    const std::vector<fs::path> roots(options.dependents.begin(), options.dependents.end());
    const auto dependents = roots.empty()
                                ? swap::dependents_of(modulepath, options.name)
                                : swap::find_dependents(roots, {current_root, target_root});
    result.report = swap::swapcheck(current_root, target_root, dependents, swap::FixRpath::no);
    const bool breaks = std::ranges::any_of(result.report->dependents, [](const auto& dependent) {
      return dependent.verdict == swap::Verdict::breaks;
    });
    if (breaks && !options.force) {
      result.outcome = SwapOutcome::refused;
      result.failure = CheckFailedError(
          options.name, "some dependents would break on " + result.target + "; nothing changed",
          "rebuild them on the new torch, or pass --force to swap anyway");
      return result;
    }
    result.report = swap::swapcheck(current_root, target_root, dependents, swap::FixRpath::yes);
  }
  swap::write_alias(alias, result.target);
  result.outcome = SwapOutcome::swapped;
  return result;
}

}  // namespace wheelmod::operations
