#include "operations/resolve.hpp"

namespace wheelmod::operations {

resolve::ResolveReport resolve(const Selection& selection, Reporter& reporter,
                               const SiteModules& site) {
  auto config = load_site_config(selection.config_dir, selection.toolchain);
  auto installed = read_site(config, selection, site, reporter);
  return resolve_selection(selection, config, reporter, std::move(installed));
}

}  // namespace wheelmod::operations
