// `wheelmod install`: resolve, fetch, unpack, relink and byte-compile into
// an EasyBuild-style prefix in one step that lands completely or not at all.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <ostream>
#include <system_error>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/selection.hpp"
#include "core/errors.hpp"
#include "easybuild/config.hpp"
#include "easybuild/library_map.hpp"
#include "easybuild/module_writer.hpp"
#include "prefix/install.hpp"

namespace wheelmod::cli {

namespace {

namespace fs = std::filesystem;

struct InstallCommandOptions {
  SelectionOptions selection;
  DownloadSettings download;
  std::vector<std::string> wheels;
  std::string prefix;
  std::string eb_installpath;
  std::vector<std::string> modules;
  std::string python_exe;
  std::string patchelf = "patchelf";
  prefix::MetadataPolicy metadata = prefix::MetadataPolicy::strip;
  unsigned threads = 0;
  bool force = false;
  bool no_compile = false;
  OutputFormat format = OutputFormat::text;
  bool write_module = false;  // --module
  std::string modulepath;
  easybuild::ModuleSyntax module_syntax = easybuild::ModuleSyntax::lua;
};

// --module: the request and where the module goes, known before anything
// is installed, so that a module already there stops the install early.
std::pair<easybuild::ModuleRequest, easybuild::ModuleTarget> module_plan(
    const InstallCommandOptions& options, const fs::path& prefix_path) {
  easybuild::ModuleRequest request;
  request.prefix = prefix_path;
  request.provenance_file = prefix_path / prefix::k_provenance_file;
  request.generator = std::string("wheelmod ") + WHEELMOD_VERSION;
  const auto modulepath = options.modulepath.empty()
                              ? easybuild::default_modulepath(prefix_path)
                              : std::optional<fs::path>(fs::absolute(options.modulepath));
  if (!modulepath)
    throw UsageError("--module", "the prefix is not <installpath>/software/<Name>/<version>",
                     "pass --modulepath DIR");
  auto target = easybuild::module_target(easybuild::module_identity(request), *modulepath, "ai",
                                         options.module_syntax);
  easybuild::check_module_target(
      target, options.force ? easybuild::ReplaceModule::yes : easybuild::ReplaceModule::no);
  return {std::move(request), std::move(target)};
}

// A temporary directory for the downloads, beside the prefix (same file
// system as the cache's hard links usually), removed on every path out.
class DownloadDir {
 public:
  explicit DownloadDir(const fs::path& prefix)
      : m_path(prefix.parent_path() / ("." + prefix.filename().string() + ".wheelmod-wheels-" +
                                       std::to_string(::getpid()))) {
    std::error_code error;
    fs::create_directories(m_path, error);
    if (error)
      throw IoError(m_path.string(), "cannot create the download directory: " + error.message(),
                    "check that the parent of --prefix is writable");
  }
  ~DownloadDir() {
    std::error_code ignored;
    fs::remove_all(m_path, ignored);
  }
  DownloadDir(const DownloadDir&) = delete;
  DownloadDir& operator=(const DownloadDir&) = delete;
  [[nodiscard]] const fs::path& path() const { return m_path; }

 private:
  fs::path m_path;
};

// The target Python for byte-compiling: --python-exe, else the loaded
// Python module's ($EBROOTPYTHON/bin/python), else none (a warning).
std::optional<fs::path> compile_python(const InstallCommandOptions& options) {
  if (options.no_compile) return std::nullopt;
  if (!options.python_exe.empty()) return fs::path(options.python_exe);
  if (const char* root = std::getenv("EBROOTPYTHON"); root != nullptr && *root != '\0') {
    const fs::path python = fs::path(root) / "bin" / "python";
    if (::access(python.c_str(), X_OK) == 0) return python;
  }
  return std::nullopt;
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
                               const easybuild::Generation& generation, bool bundle_missing) {
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
  throw error;
}

// What `wheelmod module` needs later: the toolchain, the Python and the
// modules the installation was made against (sorted, each once).
nlohmann::json provenance(const InstallCommandOptions& options,
                          const easybuild::Generation& generation,
                          const prefix::PrefixInstallRequest& request,
                          std::vector<std::string> modules, const std::string& accelerator,
                          const std::string& index) {
  std::ranges::sort(modules);
  modules.erase(std::unique(modules.begin(), modules.end()), modules.end());
  const auto toolchain = generation.toolchains.find(options.selection.toolchain);
  nlohmann::json out{
      {"schema_version", 1},
      {"installer", std::string("wheelmod ") + WHEELMOD_VERSION},
      {"toolchain", options.selection.toolchain},
      {"generation", generation.name},
      {"python", request.python_version},
      {"python_module", generation.python.module},
      {"accelerator", accelerator},
      {"modules", modules},
      {"metadata", request.metadata == prefix::MetadataPolicy::strip ? "strip" : "keep"}};
  if (toolchain != generation.toolchains.end())
    out["toolchain_module"] = toolchain->second.name + "/" + toolchain->second.version;
  if (generation.cuda) out["cuda_module"] = generation.cuda->module;
  if (!index.empty()) out["index"] = index;  // credentials already masked by the report
  return out;
}

nlohmann::json to_json(const prefix::PrefixInstallResult& result) {
  using nlohmann::json;
  json wheels = json::array();
  for (const auto& installed : result.wheels)
    wheels.push_back({{"name", installed.name},
                      {"version", installed.version},
                      {"dist_info", installed.dist_info.string()},
                      {"files", installed.files},
                      {"bytes", installed.bytes}});
  std::size_t relinked = 0;
  if (result.relink)
    for (const auto& file : result.relink->files)
      if (file.edit.method != elf::EditMethod::unchanged) ++relinked;
  return json{{"schema_version", 1},
              {"prefix", result.prefix.string()},
              {"wheels", wheels},
              {"relinked_files", relinked},
              {"byte_compiled", result.compile.ran},
              {"pyc_files", result.compile.pyc_files.size()}};
}

void run_install(const InstallCommandOptions& options, CommandContext& context) {
  if (options.wheels.empty() == options.selection.specs.empty())
    throw UsageError("install",
                     options.wheels.empty() ? "nothing to install: give SPEC... or --wheel FILE"
                                            : "give SPEC... or --wheel, not both",
                     "e.g. `wheelmod install torch==2.6.0 --toolchain foss-2024a --accelerator "
                     "cuda --prefix DIR`");
  if (options.selection.toolchain.empty())
    throw UsageError("install", "no --toolchain",
                     "the toolchain decides the Python, the modules to relink at and the layout");
  const auto config = easybuild::SiteConfig::load(
      easybuild::SiteConfig::default_dir(),
      options.selection.config_dir.empty() ? std::nullopt
                                           : std::optional<fs::path>(options.selection.config_dir));
  const auto* generation = config.find_generation(options.selection.toolchain);
  if (generation == nullptr)
    throw UsageError("--toolchain " + options.selection.toolchain, "unknown toolchain",
                     "known toolchains: see `wheelmod resolve --help` or add one with --config");

  auto reporter = make_stderr_reporter(context.global.verbosity);
  const fs::path prefix_path = fs::absolute(options.prefix).lexically_normal();
  std::optional<std::pair<easybuild::ModuleRequest, easybuild::ModuleTarget>> module_file;
  if (options.write_module) module_file = module_plan(options, prefix_path);
  prefix::PrefixInstallRequest request;
  request.prefix = prefix_path;
  request.replace = options.force ? prefix::ReplaceExisting::yes : prefix::ReplaceExisting::no;
  request.metadata = options.metadata;
  request.wheel_options.threads = options.threads;
  request.python_exe = compile_python(options);
  const auto& python_module = generation->python.version;  // 3.12.3 -> 3.12
  request.python_version = options.selection.python.empty()
                               ? python_module.substr(0, python_module.find('.', 2))
                               : options.selection.python;
  prefix::RelinkOptions relink;
  relink.generation = generation;
  relink.modules = options.modules;
  relink.locator = easybuild::environment_locator(
      options.eb_installpath.empty() ? std::nullopt
                                     : std::optional<fs::path>(options.eb_installpath));
  relink.patchelf = options.patchelf;

  std::string accelerator = options.selection.accelerator;  // "cuda 12.6.0" once resolved
  std::string index;  // where the wheels came from; none for --wheel
  std::optional<DownloadDir> downloads;
  if (!options.wheels.empty()) {
    for (const auto& wheel : options.wheels) request.wheels.emplace_back(wheel);
    for (const auto& [name, library] : generation->cuda_libraries)
      request.module_provided.insert(name);
  } else {
    if (!options.force && fs::exists(prefix_path))
      throw UsageError(prefix_path.string(), "already exists",
                       "pass --force to replace it (the old installation stays in place until "
                       "the new one is complete), or choose another --prefix");
    const auto& locator = relink.locator;
    const auto report = resolve_selection(
        options.selection, context, *reporter,
        [&locator](const std::string& module) { return locator.root_of(module).has_value(); });
    stop_on_missing_libraries(report, *generation, options.selection.bundle_missing);
    request.python_version = report.target.python;
    accelerator = report.target.accelerator;
    index = report.index;
    relink.modules.insert(relink.modules.end(), report.modules.begin(), report.modules.end());
    module_provided(report, *generation, request);
    downloads.emplace(prefix_path);
    const auto batch = download_report_wheels(report, downloads->path(), options.download,
                                              options.selection.cache_dir, *reporter);
    if (!batch.failures.empty()) throw net::combined_failure(batch);
    for (const auto& result : batch.results) request.wheels.push_back(result->path);
  }
  request.relink = relink;
  request.provenance =
      provenance(options, *generation, request, relink.modules, accelerator, index);
  prefix::CheckOptions check;
  if (!options.eb_installpath.empty()) check.allowed_roots.emplace_back(options.eb_installpath);
  request.check = check;
  const auto result = prefix::install_into_prefix(request, *reporter);
  if (module_file) {
    const auto description = easybuild::describe_installation(module_file->first);
    for (const auto& warning : description.warnings) reporter->on_warning(warning);
    const easybuild::TemplateSet templates(easybuild::TemplateSet::default_dir());
    easybuild::write_module(
        module_file->second,
        easybuild::render_module(description, options.module_syntax, templates),
        options.force ? easybuild::ReplaceModule::yes : easybuild::ReplaceModule::no);
  }

  if (options.format == OutputFormat::json) {
    auto out = to_json(result);
    if (module_file) out["module"] = module_file->second.file.string();
    context.out << out.dump(2) << '\n';
    return;
  }
  for (const auto& installed : result.wheels)
    context.out << "installed  " << installed.name << " " << installed.version << "  ("
                << installed.files << " files)\n";
  context.out << "prefix: " << result.prefix.string() << "\n";
  if (module_file) context.out << "module: " << module_file->second.file.string() << "\n";
  if (result.check) {
    context.out << "check: " << result.check->files << " ELF files load without LD_LIBRARY_PATH";
    if (!result.check->drivers.empty()) {
      std::string drivers;
      for (const auto& name : result.check->drivers)
        drivers += (drivers.empty() ? "" : ", ") + name;
      context.out << " (absent here, provided by the GPU driver on compute nodes: " << drivers
                  << ")";
    }
    context.out << "\n";
  }
}

}  // namespace

CommandRunner add_install_command(CLI::App& app) {
  auto options = std::make_shared<InstallCommandOptions>();
  auto* sub = app.add_subcommand(
      "install",
      "Resolve, fetch, unpack, relink and byte-compile wheels into an EasyBuild-style prefix, "
      "all or nothing");
  add_selection_options(*sub, options->selection, SpecArity::optional);
  add_download_options(*sub, options->download);
  sub->add_option("--wheel", options->wheels, "Install these wheel files instead of resolving");
  sub->add_option("--prefix", options->prefix, "The installation directory")->required();
  sub->add_option("--eb-installpath", options->eb_installpath,
                  "EasyBuild installpath holding software/NAME/VERSION (default: the EBROOT* "
                  "variables of loaded modules)");
  sub->add_option("--prefer-module", options->modules,
                  "Prefer this module where several provide a library (repeatable)");
  sub->add_option("--python-exe", options->python_exe,
                  "Python to byte-compile with (default: $EBROOTPYTHON/bin/python)");
  sub->add_flag("--no-compile", options->no_compile, "Do not byte-compile");
  sub->add_flag("--force", options->force,
                "Replace an existing prefix (atomically, once the new one is complete)");
  sub->add_option("--metadata", options->metadata,
                  "strip: drop Requires-Dist lines modules satisfy (recorded in wheelmod.json); "
                  "keep: leave them for a dummy-package module (default: strip)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, prefix::MetadataPolicy>{{"strip", prefix::MetadataPolicy::strip},
                                                        {"keep", prefix::MetadataPolicy::keep}},
          CLI::ignore_case));
  sub->add_option("--threads", options->threads, "Unpacking threads (default: one per core)");
  sub->add_option("--patchelf", options->patchelf,
                  "patchelf program, used when a new RPATH does not fit in place in a program "
                  "(or an unusual library layout)");
  sub->add_flag("--module", options->write_module,
                "Also write the module file, as `wheelmod module PREFIX` does (with --force, "
                "replace an existing one)");
  sub->add_option("--modulepath", options->modulepath,
                  "Module tree for --module (default: <installpath>/modules beside software/)");
  sub->add_option("--syntax", options->module_syntax, "Module syntax for --module: lua or tcl")
      ->option_text("lua|tcl")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, easybuild::ModuleSyntax>{{"lua", easybuild::ModuleSyntax::lua},
                                                         {"tcl", easybuild::ModuleSyntax::tcl}},
          CLI::ignore_case));
  add_format_option(*sub, options->format);
  return [options](CommandContext& context) { run_install(*options, context); };
}

}  // namespace wheelmod::cli
