#include "operations/resolve.hpp"

#include <filesystem>

#include "easybuild/library_map.hpp"
#include "operations/site.hpp"

namespace wheelmod::operations {

resolve::ResolveReport resolve(const Selection& selection, Reporter& reporter,
                               const SiteModules& site) {
  auto config = load_site_config(selection.config_dir, selection.toolchain);
  const auto settings = site_settings(site.eb_installpath, selection.getenv);
  std::error_code error;
  const bool site_known = !site.eb_installpath.empty() ||
                          (settings.software.origin != "EasyBuild's default" &&
                           std::filesystem::is_directory(settings.software.value, error));
  if (!site_known) return resolve_selection(selection, config, reporter);
  const auto locator = easybuild::environment_locator(
      std::filesystem::path(settings.software.value), selection.getenv);
  add_installed_providers(config, selection.toolchain, locator, site.preferred, reporter);
  return resolve_selection(selection, config, reporter, [&locator](const std::string& module) {
    return locator.root_of(module).has_value();
  });
}

}  // namespace wheelmod::operations
