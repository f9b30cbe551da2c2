// plan_install: everything `install` will do, decided in one function before anything is
// downloaded or written (install.hpp).
#include <unistd.h>

#include <algorithm>

#include "core/errors.hpp"
#include "core/strings.hpp"
#include "core/url.hpp"
#include "easybuild/library_map.hpp"
#include "emit/installation_name.hpp"
#include "index_client/accelerator.hpp"
#include "operations/install.hpp"
#include "operations/version.hpp"
#include "pep/name.hpp"
#include "prefix/staging.hpp"

namespace wheelmod::operations {

namespace fs = std::filesystem;

namespace {

// Where install downloads its wheels: PARENT/.NAME.wheelmod-downloads/, named after the prefix
// rather than the process, so that a run interrupted or failed leaves its partial downloads for
// the next run of the same install to resume (install.cpp, DownloadArea).
fs::path download_area_of(const fs::path& prefix) {
  return prefix.parent_path() / ("." + prefix.filename().string() + ".wheelmod-downloads");
}

void check_wheel_files(const std::vector<std::string>& wheels) {
  // Before anything is opened: a FIFO would block the read, a device or directory is no wheel.
  for (const auto& wheel : wheels) {
    std::error_code error;
    const auto status = fs::status(wheel, error);
    if (!fs::exists(status))
      throw UsageError("--wheel " + wheel, "no such file", "give the path of a .whl file");
    if (!fs::is_regular_file(status))
      throw UsageError("--wheel " + wheel,
                       "not a regular file (" +
                           std::string(fs::is_directory(status) ? "a directory"
                                       : fs::is_fifo(status)    ? "a FIFO"
                                                                : "a device or socket") +
                           ")",
                       "give the path of a .whl file");
  }
}

// The target Python for byte-compiling: --python-exe, else the loaded Python module's
// ($EBROOTPYTHON/bin/python). None is an error unless --no-compile says so: an installation
// without .pyc files imports slower on every node and writes __pycache__ where it may not.
std::optional<fs::path> compile_python(const InstallOptions& options,
                                       const easybuild::Generation& generation) {
  if (options.no_compile) return std::nullopt;
  if (!options.python_exe.empty()) return fs::path(options.python_exe);
  if (const auto root = options.selection.getenv("EBROOTPYTHON"); root && !root->empty()) {
    const fs::path python = fs::path(*root) / "bin" / "python";
    if (::access(python.c_str(), X_OK) == 0) return python;
  }
  throw UsageError("install",
                   "no Python to byte-compile with: no --python-exe and no loaded "
                   "Python module ($EBROOTPYTHON)",
                   "load the toolchain's Python (module load " + generation.python.module +
                       "), pass --python-exe PATH, or --no-compile to install without .pyc files");
}

// Before anything is downloaded: a CUDA library that neither a module here nor (with
// --bundle-missing) a wheel of the index provides would leave a prefix whose libraries do not
// load.
void stop_on_missing_libraries(const resolve::ResolveReport& report,
                               const easybuild::Generation& generation, const SiteSettings& site,
                               bool bundle_missing) {
  std::vector<const resolve::Dependency*> libraries;
  for (const auto& dependency : report.missing)
    if (generation.cuda_libraries.contains(dependency.name)) libraries.push_back(&dependency);
  if (libraries.empty()) return;
  CheckFailedError error(
      "install",
      std::to_string(libraries.size()) + " CUDA librar" + (libraries.size() == 1 ? "y" : "ies") +
          " the wheels need " + (libraries.size() == 1 ? "has" : "have") + " no module here",
      bundle_missing ? "install the modules (eb --robot) and point --eb-installpath at them, or "
                       "load them (their EBROOT* variables are read)"
                     : "install the modules (eb --robot) and point --eb-installpath at them, "
                       "load them, or pass --bundle-missing to install the index's nvidia-* "
                       "wheels into the prefix");
  for (const auto* dependency : libraries)
    error.with_detail(dependency->name + ": " + dependency->note);
  error.with_detail("looked in " + site.software.value + " (" + site.software.origin +
                    ") and in the EBROOT* variables of loaded modules");
  throw error;
}

// Without --prefix: where `eb` would install the easyconfig `wheelmod easyconfig` writes for the
// same selection (emit/installation_name.hpp).
fs::path easybuild_prefix(const resolve::ResolveReport& report,
                          const easybuild::Generation& generation, const std::string& toolchain,
                          const SiteSettings& site) {
  std::string torch;
  for (const auto& wheel : report.wheels)
    if (wheel.name == "torch" && wheel.requested)
      torch = wheel.version.substr(0, wheel.version.find('+'));
  if (torch.empty())
    throw UsageError("install", "no --prefix, and torch is not among the requested projects",
                     "give --prefix DIR, or request torch: the default prefix is named after it");
  std::string versionsuffix = emit::wheel_versionsuffix(index_client::AcceleratorKind::cpu, "");
  for (const auto& module : report.modules)
    if (module.starts_with("CUDA/"))
      versionsuffix =
          emit::wheel_versionsuffix(index_client::AcceleratorKind::cuda, module.substr(5));
  if (report.variant.variant.starts_with("rocm"))
    versionsuffix = emit::wheel_versionsuffix(index_client::AcceleratorKind::rocm,
                                              report.variant.variant.substr(4));
  return fs::path(site.software.value) / emit::k_wheel_software_name /
         emit::wheel_installation_version(torch, generation.toolchains.at(toolchain),
                                          versionsuffix);
}

// The CUDA libraries the resolution maps to modules: their pip names and modules (what METADATA
// loses or keeps) and the wheel directories the relink replaces by the modules' (where found).
void plan_module_libraries(const resolve::ResolveReport& report, InstallPlan& plan,
                           const easybuild::ModuleLocator& locator) {
  for (const auto& wheel : report.wheels)
    for (const auto& dependency : wheel.dependencies) {
      const auto library = plan.generation.cuda_libraries.find(dependency.name);
      if (dependency.resolution != resolve::DependencyResolution::eb_module ||
          library == plan.generation.cuda_libraries.end())
        continue;
      plan.module_provided[dependency.name] = dependency.provider;
      if (std::ranges::any_of(plan.relinks, [&](const PlannedRelink& relink) {
            return relink.package == dependency.name;
          }))
        continue;
      PlannedRelink relink{dependency.name, library->second.wheel_libdir, dependency.provider, {}};
      const auto provider = std::ranges::find(library->second.provided_by, dependency.provider,
                                              &easybuild::LibraryProvider::module);
      if (const auto root = locator.root_of(dependency.provider);
          root && provider != library->second.provided_by.end())
        relink.module_libdir = *root / provider->libdir;
      plan.relinks.push_back(std::move(relink));
    }
}

// What `wheelmod module` and `wheelmod list` read later (prefix/provenance.hpp): the toolchain,
// the Python, the modules the installation was made against, where the wheels came from.
prefix::Provenance provenance_of(const InstallOptions& options, const InstallPlan& plan) {
  prefix::Provenance out;
  out.installer = "wheelmod " + wheelmod_version();
  out.toolchain = plan.toolchain;
  out.generation = plan.generation.name;
  out.python = plan.python_version;
  out.python_module = plan.generation.python.module;
  out.accelerator =
      plan.resolution ? plan.resolution->target.accelerator : options.selection.accelerator;
  for (const auto& module : plan.modules) out.modules.push_back(module.module);
  out.metadata = plan.metadata;
  if (const auto toolchain = plan.generation.toolchains.find(plan.toolchain);
      toolchain != plan.generation.toolchains.end())
    out.toolchain_module = toolchain->second.name + "/" + toolchain->second.version;
  // Only a CUDA build depends on a CUDA module: a CPU or ROCm module must load on a site that
  // has none. The resolution's CUDA module is the one relinked at.
  const auto accelerator = index_client::Accelerator::parse(
      options.selection.accelerator.empty() ? "cpu" : options.selection.accelerator);
  if (accelerator && accelerator->kind == index_client::AcceleratorKind::cuda &&
      plan.generation.cuda)
    out.cuda_module = plan.generation.cuda->module;
  if (plan.resolution) {
    out.index = plan.resolution->index;  // credentials already masked by the report
    for (const auto& module : plan.resolution->modules)
      if (module.starts_with("CUDA/")) out.cuda_module = module;
    for (const auto& wheel : plan.resolution->wheels)
      out.wheels.push_back(
          {wheel.filename, wheel.sha256.value_or(""), without_credentials(wheel.url)});
  }
  for (const auto& file : plan.wheel_files)
    out.wheels.push_back({file.filename().string(), "", ""});
  out.software_path = plan.site.software.value;
  return out;
}

}  // namespace

namespace {

// The options with their index in effect, checked for what needs neither the site nor the index.
InstallOptions checked_options(const InstallOptions& given, Reporter& reporter) {
  auto options = given;
  options.selection = with_index_variant(given.selection, reporter);
  if (options.wheels.empty() == options.selection.specs.empty())
    throw UsageError("install",
                     options.wheels.empty() ? "nothing to install: give SPEC... or --wheel FILE"
                                            : "give SPEC... or --wheel, not both",
                     "e.g. `wheelmod install torch==2.6.0 --toolchain foss-2024a --accelerator "
                     "cuda --prefix DIR`");
  check_wheel_files(options.wheels);
  if (options.selection.toolchain.empty())
    throw UsageError("install", "no --toolchain",
                     "the toolchain decides the Python, the modules to relink at and the layout");
  if (options.prefix.empty() && options.selection.specs.empty())
    throw UsageError("install --wheel", "no --prefix", "give the installation directory");
  return options;
}

// The prefix, its download area and module file; what can be refused without the index is
// refused here, before it is read: a prefix or module file already there (the prefix decided
// again under its lock, prefix::Staging).
void settle_prefix(InstallPlan& plan, const InstallOptions& options, fs::path prefix) {
  plan.prefix = std::move(prefix);
  std::error_code error;
  plan.prefix_exists = fs::exists(fs::symlink_status(plan.prefix, error));
  plan.download_area = download_area_of(plan.prefix);
  if (options.write_module) {
    emit::ModuleRequest request;
    request.prefix = plan.prefix;
    request.generator = "wheelmod " + wheelmod_version();
    request.toolchain = plan.toolchain;
    ModuleFileChoice choice;
    choice.layout = {options.module_naming_scheme, options.module_syntax, options.modulepath};
    choice.replace = options.force ? emit::ReplaceModule::yes : emit::ReplaceModule::no;
    plan.module_file = plan_module_file(std::move(request), plan.site, plan.generation, choice);
  }
  if (!options.selection.specs.empty()) prefix::check_replaceable(plan.prefix, plan.replace);
}

// SPEC...: resolved against the site's modules (a CUDA module the site lacks is passed over for
// one it has), and stopped here when a CUDA library has none.
void plan_resolution(InstallPlan& plan, const InstallOptions& options,
                     const easybuild::SiteConfig& config, const easybuild::ModuleLocator& locator,
                     Reporter& reporter) {
  const auto started = std::chrono::steady_clock::now();
  plan.resolution = resolve_selection(
      options.selection, config, reporter,
      [&locator](const std::string& module) { return locator.root_of(module).has_value(); });
  stop_on_missing_libraries(*plan.resolution, plan.generation, plan.site,
                            options.selection.bundle_missing);
  plan.python_version = plan.resolution->target.python;  // "3.13t" is lib/python3.13
  plan.resolving_took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - started);
  plan_module_libraries(*plan.resolution, plan, locator);
}

}  // namespace

InstallPlan plan_install(const InstallOptions& given, Reporter& reporter) {
  const auto options = checked_options(given, reporter);
  const auto config = load_site_config(options.selection.config_dir, options.selection.toolchain);
  InstallPlan plan;
  plan.toolchain = options.selection.toolchain;
  plan.generation =
      find_generation(config, options.selection.toolchain,
                      "known toolchains: see `wheelmod resolve --help` or add one with --config");
  plan.getenv = options.selection.getenv;
  plan.site = site_settings(options.eb_installpath, plan.getenv);
  const auto locator =
      easybuild::environment_locator(fs::path(plan.site.software.value), plan.getenv);
  plan.replace = options.force ? prefix::ReplaceExisting::yes : prefix::ReplaceExisting::no;
  plan.metadata = options.metadata;
  plan.python_version = options.selection.python.empty()
                            ? major_minor(plan.generation.python.version)
                            : options.selection.python;
  plan.python_exe = compile_python(options, plan.generation);
  if (!options.prefix.empty())
    settle_prefix(plan, options, fs::absolute(options.prefix).lexically_normal());
  if (!options.selection.specs.empty()) plan_resolution(plan, options, config, locator, reporter);
  if (options.prefix.empty()) {
    plan.prefix_source = PrefixSource::easybuild_name;
    settle_prefix(plan, options,
                  easybuild_prefix(*plan.resolution, plan.generation, plan.toolchain, plan.site));
    reporter.on_note("prefix: " + plan.prefix.string() + " (from " + plan.site.software.origin +
                     ")");
  }
  for (const auto& wheel : options.wheels) plan.wheel_files.emplace_back(wheel);
  if (!plan.resolution)  // --wheel FILE...: every CUDA library of the generation is the modules'
    for (const auto& [name, library] : plan.generation.cuda_libraries)
      plan.module_provided[name] = "";
  std::set<std::string> modules(options.modules.begin(), options.modules.end());
  if (plan.resolution)
    modules.insert(plan.resolution->modules.begin(), plan.resolution->modules.end());
  for (const auto& module : modules) plan.modules.push_back({module, locator.root_of(module)});
  for (const auto& name : options.clash_winners)
    plan.clash_winners.insert(pep::canonicalize_name(name));
  plan.preferred_modules = options.modules;
  plan.threads = options.threads;
  plan.patchelf = options.patchelf;
  plan.provenance = provenance_of(options, plan);
  plan.download = options.download;
  plan.connection = options.selection.connection;
  plan.cache_dir = cache_dir_or_default(options.selection.cache_dir, plan.getenv);
  return plan;
}

}  // namespace wheelmod::operations
