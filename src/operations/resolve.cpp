#include "operations/resolve.hpp"

#include <algorithm>

#include "easybuild/rocm_libraries.hpp"

namespace wheelmod::operations {

namespace {

// A ROCm variant in a generation of the tables: which bundled libraries an install here would
// take from the ROCm modules (the site's, when it is read; the table's otherwise), and those
// modules among the ones to load.
void summarise_rocm(resolve::ResolveReport& report, const easybuild::SiteConfig& config,
                    const Selection& selection, const SiteModules& site) {
  if (!report.variant.variant.starts_with("rocm")) return;
  const auto* generation = config.find_generation(selection.toolchain);
  if (generation == nullptr) return;
  const auto locator = site_locator(selection, site);
  const auto plan = easybuild::plan_rocm_libraries(*generation, report.variant.variant,
                                                   locator ? &*locator : nullptr,
                                                   easybuild::RocmLibraryMode::automatic);
  resolve::RocmSummary summary{plan.wheel_rocm,     plan.stack_rocm, plan.relinked,
                               locator.has_value(), plan.summary,    {}};
  for (const auto& library : plan.libraries)
    summary.libraries.push_back({library.file, library.soname, library.module, library.note});
  for (const auto& module : plan.modules())
    if (!easybuild::is_toolchain_module(*generation, module) &&
        std::ranges::find(report.modules, module) == report.modules.end())
      report.modules.push_back(module);
  std::ranges::sort(report.modules);
  report.rocm = std::move(summary);
}

}  // namespace

resolve::ResolveReport resolve(const Selection& selection, Reporter& reporter,
                               const SiteModules& site) {
  auto config = load_site_config(selection.config_dir, selection.toolchain);
  auto installed = read_site(config, selection, site, reporter);
  auto report = resolve_selection(selection, config, reporter, std::move(installed));
  summarise_rocm(report, config, selection, site);
  return report;
}

}  // namespace wheelmod::operations
