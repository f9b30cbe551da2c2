#include "operations/install.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>

#include "core/dir_lock.hpp"
#include "core/errors.hpp"
#include "core/files.hpp"
#include "core/interrupt_notice.hpp"
#include "core/strings.hpp"
#include "core/url.hpp"
#include "core/utc.hpp"
#include "easybuild/library_map.hpp"
#include "index_client/accelerator.hpp"
#include "operations/site.hpp"
#include "operations/version.hpp"
#include "pep/name.hpp"
#include "prefix/staging.hpp"

namespace wheelmod::operations {

namespace fs = std::filesystem;

namespace {

// --module: the request and where the module goes, known before anything
// is installed, so that a module already there stops the install early.
struct ModulePlan {
  emit::ModuleRequest request;
  emit::ModuleTarget target;
  emit::ModuleSyntax syntax;
};
ModulePlan module_plan(const InstallOptions& options, const SiteSettings& site,
                       const easybuild::Generation& generation, const fs::path& prefix_path) {
  const auto layout =
      module_layout(site, {options.module_naming_scheme, options.module_syntax, options.modulepath},
                    generation, prefix_path);
  if (!layout.modulepath)
    throw UsageError("--module", "the prefix is not <installpath>/software/<Name>/<version>",
                     "pass --modulepath DIR");
  emit::ModuleRequest request;
  request.prefix = prefix_path;
  request.generator = "wheelmod " + wheelmod_version();
  request.naming = layout.naming;
  request.toolchain = options.selection.toolchain;
  auto target = emit::module_target(emit::module_identity(request), *layout.modulepath, "ai",
                                    layout.syntax, layout.suffix);
  emit::check_module_target(target,
                            options.force ? emit::ReplaceModule::yes : emit::ReplaceModule::no);
  return {std::move(request), std::move(target), layout.syntax};
}

// The target Python for byte-compiling: --python-exe, else the loaded Python module's
// ($EBROOTPYTHON/bin/python). None is an error unless --no-compile says so: an installation
// without .pyc files imports slower on every node and writes __pycache__ where it may not.
std::optional<fs::path> compile_python(const InstallOptions& options,
                                       const easybuild::Generation& generation) {
  if (options.no_compile) return std::nullopt;
  if (!options.python_exe.empty()) return fs::path(options.python_exe);
  if (const char* root = std::getenv("EBROOTPYTHON"); root != nullptr && *root != '\0') {
    const fs::path python = fs::path(root) / "bin" / "python";
    if (::access(python.c_str(), X_OK) == 0) return python;
  }
  throw UsageError("install",
                   "no Python to byte-compile with: no --python-exe and no loaded "
                   "Python module ($EBROOTPYTHON)",
                   "load the toolchain's Python (module load " + generation.python.module +
                       "), pass --python-exe PATH, or --no-compile to install without .pyc files");
}

// pip names the modules provide that are no Python packages: the CUDA
// libraries of the generation's table that the report resolved to a module.
void module_provided(const resolve::ResolveReport& report, const easybuild::Generation& generation,
                     prefix::PrefixInstallRequest& request) {
  for (const auto& wheel : report.wheels)
    for (const auto& dependency : wheel.dependencies)
      if (dependency.resolution == resolve::DependencyResolution::eb_module &&
          generation.cuda_libraries.contains(dependency.name)) {
        request.module_provided.insert(dependency.name);
        request.provided_by[dependency.name] = dependency.provider;
      }
}

// Before anything is downloaded: a CUDA library that neither a module here
// nor (with --bundle-missing) a wheel of the index provides would leave a
// prefix whose libraries do not load.
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

// What `wheelmod module` needs later: the toolchain, the Python and the
// modules the installation was made against.
prefix::Provenance provenance(const InstallOptions& options,
                              const easybuild::Generation& generation,
                              const prefix::PrefixInstallRequest& request) {
  prefix::Provenance out;
  out.installer = "wheelmod " + wheelmod_version();
  out.toolchain = options.selection.toolchain;
  out.generation = generation.name;
  out.python = request.python_version;
  out.python_module = generation.python.module;
  out.accelerator = options.selection.accelerator;
  out.modules = request.relink->modules;
  out.metadata = request.metadata;
  if (const auto toolchain = generation.toolchains.find(options.selection.toolchain);
      toolchain != generation.toolchains.end())
    out.toolchain_module = toolchain->second.name + "/" + toolchain->second.version;
  // Only a CUDA build depends on a CUDA module: a CPU or ROCm module must load on a site that
  // has none. The resolution's CUDA module (download() sets it) is the one relinked at.
  const auto accelerator = index_client::Accelerator::parse(
      options.selection.accelerator.empty() ? "cpu" : options.selection.accelerator);
  if (accelerator && accelerator->kind == index_client::AcceleratorKind::cuda && generation.cuda)
    out.cuda_module = generation.cuda->module;
  return out;
}

// Everything but the wheels: where, how to relink, compile and check.
prefix::PrefixInstallRequest prefix_request(const InstallOptions& options, const SiteSettings& site,
                                            const easybuild::Generation& generation,
                                            const fs::path& prefix_path) {
  prefix::PrefixInstallRequest request;
  request.prefix = prefix_path;
  request.replace = options.force ? prefix::ReplaceExisting::yes : prefix::ReplaceExisting::no;
  request.metadata = options.metadata;
  for (const auto& name : options.clash_winners)
    request.clash_winners.insert(pep::canonicalize_name(name));
  request.wheel_options.threads = options.threads;
  request.python_exe = compile_python(options, generation);
  request.python_version = options.selection.python.empty() ? major_minor(generation.python.version)
                                                            : options.selection.python;
  prefix::RelinkOptions relink;
  relink.generation = &generation;
  relink.modules = options.modules;
  relink.locator = easybuild::environment_locator(fs::path(site.software.value));
  relink.patchelf = options.patchelf;
  request.relink = std::move(relink);
  prefix::CheckOptions check;
  check.allowed_roots.emplace_back(fs::path(site.software.value));
  request.check = check;
  request.provenance = provenance(options, generation, request);
  request.provenance->software_path = site.software.value;
  return request;
}

// SPEC...: resolved against the site's modules, then downloaded beside the
// prefix (the same file system as the cache's hard links, usually) into the
// DownloadArea, which the caller removes once the installation is in place
// and keeps otherwise, for the next run to resume. The request learns the
// wheels and what the resolution chose.
resolve::ResolveReport resolve_for_site(const InstallOptions& options,
                                        const easybuild::SiteConfig& config,
                                        const easybuild::Generation& generation,
                                        const SiteSettings& site, Reporter& reporter) {
  const auto locator = easybuild::environment_locator(fs::path(site.software.value));
  auto report = resolve_selection(
      options.selection, config, reporter,
      [&locator](const std::string& module) { return locator.root_of(module).has_value(); });
  stop_on_missing_libraries(report, generation, site, options.selection.bundle_missing);
  return report;
}

// Without --prefix: where `eb` would install the easyconfig `wheelmod easyconfig` writes for
// the same selection, <software>/PyTorch/<version>-<toolchain>[-CUDA-<v>|-ROCm-<v>]-whl
// (EasyBuildMNS, easyconfig_plan_context.cpp's versionsuffix).
fs::path default_prefix(const resolve::ResolveReport& report,
                        const easybuild::Generation& generation, const std::string& toolchain,
                        const SiteSettings& site) {
  std::string torch;
  for (const auto& wheel : report.wheels)
    if (wheel.name == "torch" && wheel.requested)
      torch = wheel.version.substr(0, wheel.version.find('+'));
  if (torch.empty())
    throw UsageError("install", "no --prefix, and torch is not among the requested projects",
                     "give --prefix DIR, or request torch: the default prefix is named after it");
  const auto& chain = generation.toolchains.at(toolchain);
  std::string suffix = "-whl";
  for (const auto& module : report.modules)
    if (module.starts_with("CUDA/")) suffix = "-CUDA-" + module.substr(5) + "-whl";
  if (report.variant.variant.starts_with("rocm"))
    suffix = "-ROCm-" + report.variant.variant.substr(4) + "-whl";
  return fs::path(site.software.value) / "PyTorch" /
         (torch + "-" + chain.name + "-" + chain.version + suffix);
}

// Where install downloads its wheels: PARENT/.NAME.wheelmod-downloads/, named after the prefix
// rather than the process, so that a run interrupted or failed leaves its partial downloads (the
// `.part` files and their resume sidecars, net/part_file) for the next run of the same install to
// resume: gigabytes for a CUDA torch. Removed once the installation is in place. Its fetch lock
// (the one `fetch` takes) keeps two runs apart; what this run does not want is removed under it.
class DownloadArea {
 public:
  static fs::path path_for(const fs::path& prefix) {
    return prefix.parent_path() / ("." + prefix.filename().string() + ".wheelmod-downloads");
  }
  // What the next run resumes, for a failed or interrupted one.
  static std::string kept_line(const fs::path& prefix) {
    return "the downloads in " + path_for(prefix).string() +
           " are kept: run the same install again to resume them";
  }

  DownloadArea(const fs::path& prefix, Reporter& reporter) : m_path(path_for(prefix)) {
    // A link planted under this name would send the downloads elsewhere.
    std::error_code error;
    const auto status = fs::symlink_status(m_path, error);
    if (!error && fs::exists(status) && !fs::is_directory(status))
      throw IoError(m_path.string(),
                    fs::is_symlink(status) ? "is a symbolic link, not wheelmod's download directory"
                                           : "is not a directory",
                    "remove it; wheelmod creates this directory itself");
    m_lock = net::lock_download_directory(
        m_path, [&reporter](const std::string& line) { reporter.on_note(line); });
  }

  [[nodiscard]] const fs::path& path() const { return m_path; }

  // Entries of an earlier run that this one does not want (another version was installed then).
  void keep_only(const std::set<std::string>& filenames) const {
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(m_path, error)) {
      const auto what = net::classify_download_entry(entry.path().filename().string());
      if (what.kind == net::DownloadDirectoryEntry::Kind::lock) continue;
      if (!filenames.contains(what.name)) fs::remove_all(entry.path(), error);
    }
  }

  void remove() const {
    std::error_code error;
    fs::remove_all(m_path, error);
  }

  // A failed run keeps what can be resumed; a directory holding nothing but the lock goes.
  ~DownloadArea() {
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(m_path, error))
      if (net::classify_download_entry(entry.path().filename().string()).kind !=
          net::DownloadDirectoryEntry::Kind::lock)
        return;
    fs::remove_all(m_path, error);
  }
  DownloadArea(const DownloadArea&) = delete;
  DownloadArea& operator=(const DownloadArea&) = delete;

 private:
  fs::path m_path;
  DirectoryLock m_lock;
};

// Returns the log's lines for the files fetched: each with the sha256 it was checked against,
// or the one computed where the index gave none.
std::string download(const InstallOptions& options, const resolve::ResolveReport& report,
                     const easybuild::Generation& generation,
                     std::optional<DownloadArea>& downloads, prefix::PrefixInstallRequest& request,
                     Reporter& reporter) {
  request.python_version = report.target.python;
  auto& modules = request.relink->modules;
  modules.insert(modules.end(), report.modules.begin(), report.modules.end());
  module_provided(report, generation, request);
  request.provenance->python = report.target.python;
  request.provenance->accelerator = report.target.accelerator;
  request.provenance->index = report.index;  // credentials already masked by the report
  request.provenance->modules = modules;
  for (const auto& module : report.modules)
    if (module.starts_with("CUDA/")) request.provenance->cuda_module = module;
  downloads.emplace(request.prefix, reporter);
  std::set<std::string> wanted;
  for (const auto& wheel : report.wheels) wanted.insert(wheel.filename);
  downloads->keep_only(wanted);
  const auto batch =
      download_report_wheels(report, downloads->path(), options.download,
                             options.selection.connection, options.selection.cache_dir, reporter);
  if (!batch.failures.empty()) {
    reporter.on_note(DownloadArea::kept_line(request.prefix));
    throw net::combined_failure(batch);
  }
  std::string fetched = std::to_string(batch.results.size()) + " wheels";
  for (const auto& result : batch.results) {
    request.wheels.push_back(result->path);
    fetched += "\n  " + result->path.filename().string() + " sha256:" + result->sha256 +
               (result->sha256_from_index ? " (as the index gives it)" : " (computed)");
  }
  return fetched;
}

using Clock = std::chrono::steady_clock;

// PREFIX/easybuild/wheelmod-install.log, beside the provenance, as EasyBuild keeps its own log
// there: what was resolved, fetched, relinked, compiled and checked, with how long each took.
class InstallLog {
 public:
  void line(const std::string& text) { m_text += utc_now() + " " + text + "\n"; }
  void stage(const std::string& name, Clock::time_point started, const std::string& what) {
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count();
    line(name + " in " + std::to_string(ms / 1000) + "." + std::to_string(ms % 1000 / 100) +
         " s: " + what);
  }
  [[nodiscard]] const std::string& text() const { return m_text; }

 private:
  std::string m_text;
};

std::string resolution_text(const resolve::ResolveReport& report) {
  std::string out = "variant " + report.variant.variant + " (" + report.variant.reason + ")";
  for (const auto& wheel : report.wheels)
    out += "\n  " + wheel.filename + " sha256:" + wheel.sha256.value_or("(computed on download)") +
           " from " + mask_credentials(wheel.url);
  for (const auto& module : report.modules) out += "\n  module " + module;
  return out;
}

std::string installation_text(const prefix::PrefixInstallResult& result) {
  std::string out;
  for (const auto& wheel : result.wheels)
    out += "\n  unpacked " + wheel.name + " " + wheel.version + " (" + std::to_string(wheel.files) +
           " files)";
  if (result.relink) {
    std::size_t changed = 0;
    for (const auto& file : result.relink->files)
      if (file.edit.method != elf::EditMethod::unchanged) {
        ++changed;
        out += "\n  relinked " + file.file.string() + ": " + file.plan.new_value;
      }
    out += "\n  relink: " + std::to_string(changed) + " of " +
           std::to_string(result.relink->elf_files) + " ELF files changed";
  }
  out += result.compile.ran
             ? "\n  byte-compiled " + std::to_string(result.compile.pyc_files.size()) + " files"
             : "\n  not byte-compiled: " + result.compile.skipped;
  if (result.check)
    out += "\n  check: " + std::to_string(result.check->files) + " ELF files, " +
           (result.check->passed() ? "every library resolves" : "unresolved libraries");
  return out;
}

}  // namespace

InstallResult install(const InstallOptions& given, Reporter& reporter) {
  auto options = given;
  options.selection = with_index_variant(given.selection, reporter);
  if (options.wheels.empty() == options.selection.specs.empty())
    throw UsageError("install",
                     options.wheels.empty() ? "nothing to install: give SPEC... or --wheel FILE"
                                            : "give SPEC... or --wheel, not both",
                     "e.g. `wheelmod install torch==2.6.0 --toolchain foss-2024a --accelerator "
                     "cuda --prefix DIR`");
  // Before anything is opened: a FIFO would block the read, a device or directory is no wheel.
  for (const auto& wheel : options.wheels) {
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
  if (options.selection.toolchain.empty())
    throw UsageError("install", "no --toolchain",
                     "the toolchain decides the Python, the modules to relink at and the layout");
  const auto config = load_site_config(options.selection.config_dir, options.selection.toolchain);
  const auto& generation =
      find_generation(config, options.selection.toolchain,
                      "known toolchains: see `wheelmod resolve --help` or add one with --config");
  InstallLog log;
  log.line("wheelmod " + wheelmod_version() + " install, toolchain " + options.selection.toolchain +
           ", accelerator " + options.selection.accelerator);
  const auto site = site_settings(options.eb_installpath);
  std::optional<resolve::ResolveReport> report;
  if (options.prefix.empty()) {
    if (options.selection.specs.empty())
      throw UsageError("install --wheel", "no --prefix", "give the installation directory");
    report = resolve_for_site(options, config, generation, site, reporter);
    options.prefix = default_prefix(*report, generation, options.selection.toolchain, site);
    reporter.on_note("prefix: " + options.prefix + " (from " + site.software.origin + ")");
  }
  const fs::path prefix_path = fs::absolute(options.prefix).lexically_normal();
  std::optional<ModulePlan> module_file;
  if (options.write_module) module_file = module_plan(options, site, generation, prefix_path);
  auto request = prefix_request(options, site, generation, prefix_path);

  // The lock `eb` takes on the same directory, held until the installation is in place; not
  // where no EasyBuild is configured and its default software path does not exist (creating
  // ~/.local/easybuild for a --prefix elsewhere would serve no eb).
  std::optional<easybuild::InstallLock> eb_lock;
  if (site.locks.origin != "EasyBuild's default" || fs::is_directory(site.software.value))
    eb_lock.emplace(easybuild::InstallLock::acquire(
        site.locks.value, prefix_path, site.lock_wait,
        [&reporter](const std::string& line) { reporter.on_note(line); }));
  std::optional<DownloadArea> downloads;
  // Ctrl-C or SIGTERM from here on: say what the next run resumes (the process still ends).
  std::optional<InterruptNotice> notice;
  if (!options.wheels.empty()) {
    for (const auto& wheel : options.wheels) request.wheels.emplace_back(wheel);
    for (const auto& [name, library] : generation.cuda_libraries)
      request.module_provided.insert(name);
  } else {
    // Early, before any download; decided again under the prefix lock (prefix::Staging).
    prefix::check_replaceable(
        prefix_path, options.force ? prefix::ReplaceExisting::yes : prefix::ReplaceExisting::no);
    const auto resolving = Clock::now();
    if (!report) report = resolve_for_site(options, config, generation, site, reporter);
    log.stage("resolved", resolving, resolution_text(*report));
    const auto fetching = Clock::now();
    notice.emplace("wheelmod: interrupted; " + DownloadArea::kept_line(prefix_path));
    const auto fetched = download(options, *report, generation, downloads, request, reporter);
    log.stage("fetched", fetching, fetched);
  }
  const auto installing = Clock::now();
  if (module_file) log.line("module: " + module_file->target.file.string());
  request.log = [&log, installing](const prefix::PrefixInstallResult& done) {
    log.stage("installed", installing, installation_text(done));
    return log.text();
  };
  InstallResult result{prefix::install_into_prefix(request, reporter), std::nullopt, ""};
  if (module_file) {
    const auto description = emit::describe_installation(module_file->request);
    for (const auto& warning : description.warnings) reporter.on_warning(warning);
    // install's --python was given on purpose: written, with the warning (`module` refuses).
    if (!description.python_mismatch.empty()) reporter.on_warning(description.python_mismatch);
    const emit::TemplateSet templates(emit::TemplateSet::default_dir());
    emit::write_module(module_file->target,
                       emit::render_module(description, module_file->syntax, templates),
                       options.force ? emit::ReplaceModule::yes : emit::ReplaceModule::no);
    result.module_file = module_file->target.file;
    result.module_name = description.identity.name + "/" + description.identity.full_version;
  }
  notice.reset();
  if (downloads) downloads->remove();
  return result;
}

}  // namespace wheelmod::operations
