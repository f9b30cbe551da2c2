#include "operations/relink.hpp"

#include <map>
#include <optional>
#include <system_error>

#include "core/errors.hpp"
#include "core/timings.hpp"
#include "easybuild/library_map.hpp"
#include "easybuild/rocm_libraries.hpp"
#include "operations/selection.hpp"
#include "operations/site.hpp"
#include "prefix/provenance.hpp"

namespace wheelmod::operations {

namespace {

// The ROCm major.minor of the torch a prefix holds: its provenance's, else the local label of
// torch's dist-info (torch-2.9.1+rocm6.4.dist-info); nullopt for a torch of no ROCm build.
std::optional<std::string> wheel_rocm_of(const std::filesystem::path& site_packages,
                                         const std::optional<prefix::Provenance>& provenance) {
  if (provenance && provenance->rocm && !provenance->rocm->wheel.empty())
    return provenance->rocm->wheel;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(site_packages, error)) {
    const auto name = entry.path().filename().string();
    const auto at = name.find("+rocm");
    if (name.starts_with("torch-") && name.ends_with(".dist-info") && at != std::string::npos)
      return easybuild::rocm_major_minor(name.substr(at + 1, name.size() - 10 - at - 1));
  }
  return std::nullopt;
}

// The bundled ROCm libraries to take from modules. `modules` takes every one a module provides,
// removing the copies (the relink of an easyconfig's postinstall, where pip unpacked the wheel as
// published); `auto` only re-points those an install already took (no copy in torch/lib): relink
// changes search paths, it removes no file a wheel installed unless asked to.
void plan_rocm(prefix::RelinkOptions& relink, const std::filesystem::path& prefix_dir,
               const std::optional<prefix::Provenance>& provenance,
               easybuild::RocmLibraryMode mode) {
  if (mode == easybuild::RocmLibraryMode::bundled) return;
  const auto site_packages = prefix::find_site_packages(prefix_dir);
  const auto wheel_rocm = wheel_rocm_of(site_packages, provenance);
  if (!wheel_rocm) {
    if (mode == easybuild::RocmLibraryMode::modules)
      throw UsageError("--rocm-libraries modules", "the prefix holds no torch of a ROCm build",
                       "leave --rocm-libraries out");
    return;
  }
  auto plan =
      easybuild::plan_rocm_libraries(*relink.generation, *wheel_rocm, &relink.locator, mode);
  if (mode == easybuild::RocmLibraryMode::modules) {
    relink.rocm_take = std::move(plan);
    return;
  }
  const auto torch_lib = site_packages / "torch" / "lib";
  for (auto& library : plan.libraries) {
    std::error_code error;
    if (library.from_module() &&
        std::filesystem::exists(std::filesystem::symlink_status(torch_lib / library.file, error)))
      library.module.clear();
  }
  relink.rocm_links = plan.links();
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
  plan_rocm(relink, options.prefix, provenance, options.rocm_libraries);
  return prefix::relink_prefix(options.prefix, relink, reporter);
}

}  // namespace wheelmod::operations
