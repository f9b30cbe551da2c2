#include "operations/relink.hpp"

#include <map>
#include <optional>
#include <system_error>

#include "core/timings.hpp"
#include "easybuild/library_map.hpp"
#include "easybuild/rocm_libraries.hpp"
#include "operations/selection.hpp"
#include "operations/site.hpp"
#include "prefix/provenance.hpp"

namespace wheelmod::operations {

namespace {

// The bundled ROCm libraries an installation took from modules, found again at the site: those
// whose copy is no longer in torch/lib (install removed it). A copy still there stays in use:
// relink changes search paths, it removes no file a wheel installed.
std::map<std::string, easybuild::RocmLink> rocm_links_of(const std::string& prefix_dir,
                                                         const easybuild::Generation& generation,
                                                         const prefix::RocmProvenance& rocm,
                                                         const easybuild::ModuleLocator& locator) {
  auto plan = easybuild::plan_rocm_libraries(generation, rocm.wheel, locator,
                                             easybuild::RocmLibraryMode::automatic);
  const auto torch_lib = prefix::find_site_packages(prefix_dir) / "torch" / "lib";
  for (auto& library : plan.libraries) {
    std::error_code error;
    if (library.from_module() &&
        std::filesystem::exists(std::filesystem::symlink_status(torch_lib / library.file, error)))
      library.module.clear();
  }
  return plan.links();
}

}  // namespace

prefix::RelinkReport relink(const RelinkOptions& options, Reporter& reporter) {
  prefix::RelinkOptions relink;
  // Without --toolchain: the one `wheelmod install` recorded, and the modules it was made
  // against (prefix/provenance.hpp); a prefix wheelmod did not make needs --toolchain.
  std::string toolchain = options.toolchain;
  auto modules = options.modules;
  std::optional<timings::Scope> phase(std::in_place, "settings");
  std::string software = site_settings(options.eb_installpath, options.getenv).software.value;
  std::optional<prefix::Provenance> provenance;
  if (std::error_code error;
      !toolchain.empty() &&
      std::filesystem::exists(std::filesystem::path(options.prefix) / prefix::k_provenance_file,
                              error))
    provenance = prefix::read_provenance(options.prefix);
  if (toolchain.empty()) {
    provenance = prefix::read_provenance(options.prefix);
    toolchain = provenance->toolchain;
    if (modules.empty()) modules = provenance->modules;
    if (options.eb_installpath.empty() && !provenance->software_path.empty())
      software = provenance->software_path;
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
  if (provenance && provenance->rocm && !provenance->rocm->wheel.empty())
    relink.rocm_links =
        rocm_links_of(options.prefix, *relink.generation, *provenance->rocm, relink.locator);
  return prefix::relink_prefix(options.prefix, relink, reporter);
}

}  // namespace wheelmod::operations
