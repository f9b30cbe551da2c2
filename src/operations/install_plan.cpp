// plan_install: everything `install` will do, decided in one function before anything is
// downloaded or written (install.hpp).
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>

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
                          const SiteSettings& site,
                          const std::optional<easybuild::RocmPlan>& rocm) {
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
    versionsuffix = emit::wheel_versionsuffix(
        index_client::AcceleratorKind::rocm,
        rocm && rocm->relinked ? rocm->stack_rocm : report.variant.variant.substr(4));
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
  // A CUDA library's module is the first of its providers the installation was made against, as
  // relink chose it.
  if (!out.cuda_module.empty()) {
    for (const auto& [package, library] : plan.generation.cuda_libraries) {
      const auto provider = std::ranges::find_if(library.provided_by, [&](const auto& candidate) {
        return std::ranges::find(out.modules, candidate.module) != out.modules.end();
      });
      if (provider == library.provided_by.end()) continue;
      for (const auto& soname : library.libraries)
        out.module_libraries.emplace(soname, provider->module);
    }
  }
  // A ROCm library taken from a module loads from it under either name, or the check fails.
  if (plan.rocm) {
    for (const auto& [name, link] : plan.rocm->links())
      out.module_libraries.emplace(name, link.module);
    out.rocm =
        prefix::RocmProvenance{.wheel = plan.rocm->wheel_rocm,
                               .stack = plan.rocm->stack_rocm,
                               .mode = std::string(easybuild::rocm_mode_text(plan.rocm->mode)),
                               .summary = plan.rocm->summary,
                               .libraries = {}};
    for (const auto& library : plan.rocm->libraries)
      out.rocm->libraries.push_back(
          {library.file, library.soname, library.module, library.module_rocm.value_or("")});
  }
  return out;
}

}  // namespace

namespace {

// The options with their index in effect, checked for what needs neither the site nor the index.
InstallOptions checked_options(const InstallOptions& given, Reporter& reporter) {
  auto options = given;
  options.selection = with_index_variant(given.selection, reporter);
  require_one_source("install", "install", !options.selection.specs.empty(), "SPEC...",
                     !options.wheels.empty(), "--wheel FILE",
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
// The module --module writes: --module-name, else the prefix's own name, which only an
// installation directory has (<software>/<Name>/<version>, EasyBuild's layout). Any other prefix
// (`--prefix myprefix` run in ~/rel) would put a module `rel/myprefix` into the site's tree,
// where every user's `module avail` lists it.
void name_module(emit::ModuleRequest& request, const std::string& given, const fs::path& prefix,
                 const SiteSettings& site) {
  if (!given.empty()) {
    const auto slash = given.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == given.size() ||
        given.find('/', slash + 1) != std::string::npos)
      throw UsageError("--module-name " + given, "not NAME/VERSION",
                       "give the module as `module load` takes it, e.g. PyTorch/2.12.0-whl");
    request.name = given.substr(0, slash);
    request.full_version = given.substr(slash + 1);
    return;
  }
  const auto software = prefix.parent_path().parent_path();
  const auto site_software = fs::absolute(site.software.value).lexically_normal();
  if (software == site_software || software.filename() == "software") return;
  throw UsageError(prefix.string(),
                   "--module: not an installation directory <software>/<Name>/<version>, so it "
                   "names no module (the software path is " +
                       site_software.string() + ")",
                   "give --module-name NAME/VERSION, or install under the software path");
}

// The installation wheelmod made at `prefix`, if it holds one it can read.
std::optional<prefix::Provenance> installation_at(const fs::path& prefix) {
  std::error_code error;
  if (!fs::exists(prefix / prefix::k_provenance_file, error)) return std::nullopt;
  try {
    return prefix::read_provenance(prefix);
  } catch (const Error&) {
    return std::nullopt;  // unreadable: replaced only with --force, as any other prefix
  }
}

void settle_prefix(InstallPlan& plan, const InstallOptions& options, fs::path prefix) {
  plan.prefix = std::move(prefix);
  std::error_code error;
  plan.prefix_exists = fs::exists(fs::symlink_status(plan.prefix, error));
  plan.download_area = download_area_of(plan.prefix);
  // A wheelmod installation there is compared with the resolution (settle_reinstall) before
  // anything is refused: the same request again is no error.
  plan.installed = options.selection.specs.empty() ? std::nullopt : installation_at(plan.prefix);
  if (options.write_module) {
    emit::ModuleRequest request;
    request.prefix = plan.prefix;
    name_module(request, options.module_name, plan.prefix, plan.site);
    request.generator = "wheelmod " + wheelmod_version();
    request.toolchain = plan.toolchain;
    ModuleFileChoice choice;
    choice.layout = {options.module_naming_scheme, options.module_syntax, options.modulepath};
    choice.strict = options.strict_modules;
    choice.getenv = plan.getenv;
    choice.replace =
        options.force || plan.installed ? emit::ReplaceModule::yes : emit::ReplaceModule::no;
    plan.module_file = plan_module_file(std::move(request), plan.site, plan.generation, choice);
  }
  if (!options.selection.specs.empty() && !plan.installed)
    prefix::check_replaceable(plan.prefix, plan.replace);
}

// What differs between the installation at the prefix and this plan's, one line each.
std::vector<std::string> differences(const prefix::Provenance& was, const prefix::Provenance& now) {
  std::vector<std::string> out;
  const auto compare = [&out](const std::string& what, const std::string& a, const std::string& b) {
    if (a != b)
      out.push_back(what + ": " + (a.empty() ? "(none)" : a) + " -> " + (b.empty() ? "(none)" : b));
  };
  compare("toolchain", was.toolchain, now.toolchain);
  compare("Python", was.python, now.python);
  compare("accelerator", was.accelerator, now.accelerator);
  const auto set_of = [](const std::vector<std::string>& items) {
    return std::set<std::string>(items.begin(), items.end());
  };
  const auto listed = [](const std::set<std::string>& items) {
    return items.empty() ? std::string("(none)") : join(items, ", ");
  };
  if (set_of(was.modules) != set_of(now.modules))
    out.push_back("modules: " + listed(set_of(was.modules)) + " -> " + listed(set_of(now.modules)));
  // A wheel is the same when its file name is, and its sha256 where both sides know it.
  const auto wheels = [](const prefix::Provenance& provenance) {
    std::map<std::string, std::string> by_file;
    for (const auto& wheel : provenance.wheels) by_file[wheel.filename] = wheel.sha256;
    return by_file;
  };
  const auto before = wheels(was);
  const auto after = wheels(now);
  std::set<std::string> gone;
  std::set<std::string> added;
  for (const auto& [name, sha256] : before) {
    const auto it = after.find(name);
    if (it == after.end() || (!sha256.empty() && !it->second.empty() && sha256 != it->second))
      gone.insert(name);
  }
  for (const auto& [name, sha256] : after)
    if (!before.contains(name) || gone.contains(name)) added.insert(name);
  if (!gone.empty() || !added.empty())
    out.push_back("wheels: " + listed(gone) + " -> " + listed(added));
  return out;
}

// The prefix holds a wheelmod installation: the same plan is already installed; a different one
// is refused without --force, naming what differs.
void settle_reinstall(InstallPlan& plan, const InstallOptions& options) {
  const auto changed = differences(*plan.installed, plan.provenance);
  if (changed.empty()) {
    plan.already_installed = true;
    return;
  }
  if (options.force) return;
  UsageError error(plan.prefix.string(),
                   "already holds an installation made from a different resolution",
                   "pass --force to replace it (the old installation stays in place until the "
                   "new one is complete), or choose another --prefix");
  for (const auto& line : changed) error.with_detail(line);
  if (plan.module_file && plan.module_file->target) {
    // Planned as replaceable while undecided: as without an installation there now.
    auto target = *plan.module_file->target;
    try {
      emit::check_module_target(target, emit::ReplaceModule::no);
    } catch (const UsageError&) {
      error.with_detail("and a module file is already there: " + target.file.string());
    }
  }
  throw error;
}

// SPEC...: resolved against the site's modules (a CUDA module the site lacks is passed over for
// one it has), and stopped here when a CUDA library has none.
void plan_resolution(InstallPlan& plan, const InstallOptions& options,
                     const easybuild::SiteConfig& config, const easybuild::ModuleLocator& locator,
                     Reporter& reporter) {
  const auto started = std::chrono::steady_clock::now();
  plan.resolution =
      resolve_selection(options.selection, config, reporter,
                        [&locator](const std::string& module) { return locator.root_of(module); });
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
  auto config = load_site_config(options.selection.config_dir, options.selection.toolchain);
  InstallPlan plan;
  plan.toolchain = options.selection.toolchain;
  plan.getenv = options.selection.getenv;
  plan.site = site_settings(options.eb_installpath, plan.getenv);
  const auto locator =
      easybuild::environment_locator(fs::path(plan.site.software.value), plan.getenv);
  add_installed_providers(config, options.selection.toolchain, locator, options.modules, reporter);
  plan.generation =
      find_generation(config, options.selection.toolchain,
                      "known toolchains: see `wheelmod resolve --help` or add one with --config");
  plan.replace = options.force ? prefix::ReplaceExisting::yes : prefix::ReplaceExisting::no;
  plan.metadata = options.metadata;
  plan.python_version = options.selection.python.empty()
                            ? major_minor(plan.generation.python.version)
                            : options.selection.python;
  plan.python_exe = compile_python(options, plan.generation);
  if (!options.prefix.empty())
    settle_prefix(plan, options, fs::absolute(options.prefix).lexically_normal());
  if (!options.selection.specs.empty()) plan_resolution(plan, options, config, locator, reporter);
  if (plan.resolution && plan.resolution->variant.variant.starts_with("rocm"))
    plan.rocm = easybuild::plan_rocm_libraries(plan.generation, plan.resolution->variant.variant,
                                               &locator, options.rocm_libraries);
  if (options.prefix.empty()) {
    plan.prefix_source = PrefixSource::easybuild_name;
    settle_prefix(
        plan, options,
        easybuild_prefix(*plan.resolution, plan.generation, plan.toolchain, plan.site, plan.rocm));
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
  if (plan.rocm)
    for (const auto& module : plan.rocm->modules())
      if (!easybuild::is_toolchain_module(plan.generation, module)) modules.insert(module);
  for (const auto& module : modules) plan.modules.push_back({module, locator.root_of(module)});
  for (const auto& name : options.clash_winners)
    plan.clash_winners.insert(pep::canonicalize_name(name));
  plan.preferred_modules = options.modules;
  plan.refuse_startup_code = options.strict_startup;
  plan.threads = options.threads;
  plan.patchelf = options.patchelf;
  plan.provenance = provenance_of(options, plan);
  if (plan.module_file) {
    plan.module_loads = emit::module_dependencies(
        plan.provenance, emit::module_identity(plan.module_file->request).name,
        plan.module_file->request.naming);
    plan.module_loads_missing = missing_modules(plan.module_loads, plan.module_file->module_trees);
  }
  if (plan.installed) settle_reinstall(plan, options);
  plan.download = options.download;
  plan.connection = options.selection.connection;
  plan.cache_dir = cache_dir_or_default(options.selection.cache_dir, plan.getenv);
  return plan;
}

}  // namespace wheelmod::operations
