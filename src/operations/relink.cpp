#include "operations/relink.hpp"

#include <optional>

#include "core/timings.hpp"
#include "easybuild/library_map.hpp"
#include "operations/selection.hpp"
#include "operations/site.hpp"
#include "prefix/provenance.hpp"

namespace wheelmod::operations {

prefix::RelinkReport relink(const RelinkOptions& options, Reporter& reporter) {
  prefix::RelinkOptions relink;
  // Without --toolchain: the one `wheelmod install` recorded, and the modules it was made
  // against (prefix/provenance.hpp); a prefix wheelmod did not make needs --toolchain.
  std::string toolchain = options.toolchain;
  auto modules = options.modules;
  std::optional<timings::Scope> phase(std::in_place, "settings");
  std::string software = site_settings(options.eb_installpath, options.getenv).software.value;
  if (toolchain.empty()) {
    const auto provenance = prefix::read_provenance(options.prefix);
    toolchain = provenance.toolchain;
    if (modules.empty()) modules = provenance.modules;
    if (options.eb_installpath.empty() && !provenance.software_path.empty())
      software = provenance.software_path;
  }
  phase.reset();
  const auto config = load_site_config(options.config_dir, toolchain);
  relink.generation = &find_generation(
      config, toolchain, "give the toolchain the prefix was installed for, e.g. foss-2024a");
  relink.modules = modules;
  relink.locator = easybuild::environment_locator(std::filesystem::path(software), options.getenv);
  relink.tag = options.runpath ? elf::SearchPathTag::runpath : elf::SearchPathTag::rpath;
  relink.dry_run = options.dry_run;
  relink.patchelf = options.patchelf;
  return prefix::relink_prefix(options.prefix, relink, reporter);
}

}  // namespace wheelmod::operations
