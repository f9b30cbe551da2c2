#include "operations/relink.hpp"

#include "easybuild/library_map.hpp"
#include "operations/selection.hpp"
#include "operations/site.hpp"

namespace wheelmod::operations {

prefix::RelinkReport relink(const RelinkOptions& options, Reporter& reporter) {
  const auto config = load_site_config(options.config_dir);
  prefix::RelinkOptions relink;
  relink.generation =
      &find_generation(config, options.toolchain,
                       "give the toolchain the prefix was installed for, e.g. foss-2024a");
  relink.modules = options.modules;
  relink.locator = easybuild::environment_locator(
      std::filesystem::path(site_settings(options.eb_installpath).software.value));
  relink.tag = options.runpath ? elf::SearchPathTag::runpath : elf::SearchPathTag::rpath;
  relink.dry_run = options.dry_run;
  relink.patchelf = options.patchelf;
  return prefix::relink_prefix(options.prefix, relink, reporter);
}

}  // namespace wheelmod::operations
