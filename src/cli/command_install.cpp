// `wheelmod install`: the options of operations::install, and what it
// installed as text or JSON.
#include <map>
#include <memory>
#include <ostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "core/strings.hpp"
#include "operations/install.hpp"
#include "selection.hpp"
#include "terminal_stream.hpp"

namespace wheelmod::cli {

namespace {

struct InstallCommand {
  operations::InstallOptions options;
  OutputFormat format = OutputFormat::text;
  bool dry_run = false;
  bool strict = false;  // --strict: the module check and the start-up code check fail
};

std::string_view syntax_name(emit::ModuleSyntax syntax) {
  return syntax == emit::ModuleSyntax::lua ? "lua" : "tcl";
}

std::string_view metadata_name(easybuild::MetadataPolicy policy) {
  return policy == easybuild::MetadataPolicy::strip ? "strip" : "keep";
}

// A ROCm wheel's bundled libraries: which come from modules, which stay, and why.
nlohmann::json rocm_json(const easybuild::RocmPlan& rocm) {
  using nlohmann::json;
  json libraries = json::array();
  for (const auto& library : rocm.libraries)
    libraries.push_back(
        {{"file", library.file},
         {"soname", library.soname},
         {"module", library.from_module() ? json(library.module) : json(nullptr)},
         {"directory", library.from_module() ? json(library.directory.string()) : json(nullptr)},
         {"wheel_data", library.wheel_data},
         {"note", library.note}});
  return {{"mode", easybuild::rocm_mode_text(rocm.mode)},
          {"wheel_rocm", rocm.wheel_rocm},
          {"stack_rocm", rocm.stack_rocm.empty() ? json(nullptr) : json(rocm.stack_rocm)},
          {"relinked", rocm.relinked},
          {"summary", rocm.summary},
          {"libraries", libraries}};
}

// The ROCm part of the plan in words: one line per library, the module or why it stays.
std::string rocm_text(const easybuild::RocmPlan& rocm) {
  std::string out = "\nrocm:     " + rocm.summary;
  if (!rocm.relinked) return out;
  for (const auto& library : rocm.libraries)
    out +=
        "\n  torch/lib/" + library.file + " (" + library.soname + ") " +
        (library.from_module()
             ? "-> " + library.module + "  " + library.directory.string() + "  [removed" +
                   (library.wheel_data.empty() ? "" : " with " + join(library.wheel_data, ", ")) +
                   "]"
             : "kept: " + library.note);
  return out;
}

// --dry-run --format json: the plan (schema_version 1).
nlohmann::json plan_json(const operations::InstallPlan& plan) {
  using nlohmann::json;
  json modules = json::array();
  for (const auto& module : plan.modules)
    modules.push_back({{"module", module.module},
                       {"root", module.root ? json(module.root->string()) : json(nullptr)}});
  json relinks = json::array();
  for (const auto& relink : plan.relinks)
    relinks.push_back(
        {{"package", relink.package},
         {"wheel_libdir", relink.wheel_libdir},
         {"module", relink.module},
         {"module_libdir",
          relink.module_libdir.empty() ? json(nullptr) : json(relink.module_libdir.string())}});
  json wheel_files = json::array();
  for (const auto& file : plan.wheel_files) wheel_files.push_back(file.string());
  json out{{"schema_version", 1},
           {"dry_run", true},
           {"toolchain", plan.toolchain},
           {"generation", plan.generation.name},
           {"prefix", plan.prefix.string()},
           {"prefix_source",
            plan.prefix_source == operations::PrefixSource::option ? "--prefix" : "easybuild"},
           {"prefix_exists", plan.prefix_exists},
           {"replace", plan.replace == prefix::ReplaceExisting::yes},
           {"python", plan.python_version},
           {"python_exe", plan.python_exe ? json(plan.python_exe->string()) : json(nullptr)},
           {"resolution", plan.resolution ? resolve::to_json(*plan.resolution) : json(nullptr)},
           {"wheel_files", wheel_files},
           {"modules", modules},
           {"relink", relinks},
           {"rocm", plan.rocm ? rocm_json(*plan.rocm) : json(nullptr)},
           {"metadata", metadata_name(plan.metadata)},
           {"module_provided", plan.module_provided},
           {"download_area", plan.resolution ? json(plan.download_area.string()) : json(nullptr)},
           {"cache_dir", plan.cache_dir}};
  if (plan.module_file && plan.module_file->target)
    out["module_file"] = {{"file", plan.module_file->target->file.string()},
                          {"symlink", plan.module_file->target->symlink.string()},
                          {"syntax", syntax_name(plan.module_file->syntax)},
                          {"loads", plan.module_loads},
                          {"missing", plan.module_loads_missing}};
  else
    out["module_file"] = nullptr;
  return out;
}

// --dry-run: the plan in words.
std::string plan_text(const operations::InstallPlan& plan) {
  std::string out = "prefix:   " + plan.prefix.string();
  if (plan.prefix_source == operations::PrefixSource::easybuild_name)
    out += "  (EasyBuild's name under " + plan.site.software.value + ")";
  if (plan.prefix_exists)
    out += plan.replace == prefix::ReplaceExisting::yes ? "  [exists: replaced, --force]"
                                                        : "  [exists]";
  out += "\ntoolchain: " + plan.toolchain + " (generation " + plan.generation.name + "), Python " +
         plan.python_version + ", " +
         (plan.python_exe ? "byte-compiled with " + plan.python_exe->string()
                          : std::string("not byte-compiled"));
  if (plan.resolution) {
    const auto& report = *plan.resolution;
    out += "\nvariant:  " + report.variant.variant + " (" + report.variant.reason + ")";
    out += "\nwheels:";
    for (const auto& wheel : report.wheels)
      out += "\n  " + wheel.filename +
             "  sha256:" + wheel.sha256.value_or("(none on the index: computed on download)") +
             (wheel.requested ? "" : "  (" + wheel.why + ")");
  } else {
    out += "\nwheels:";
    for (const auto& file : plan.wheel_files) out += "\n  " + file.string();
  }
  out += "\nmodules:";
  for (const auto& module : plan.modules)
    out += "\n  " + module.module + "  " +
           (module.root ? module.root->string() : std::string("(not found here)"));
  if (!plan.relinks.empty()) {
    out += "\nrelink:";
    for (const auto& relink : plan.relinks)
      out += "\n  " + relink.wheel_libdir + " -> " +
             (relink.module_libdir.empty() ? relink.module + " (not found here)"
                                           : relink.module_libdir.string()) +
             "  (" + relink.package + ")";
  }
  if (plan.rocm) out += rocm_text(*plan.rocm);
  std::string provided;
  for (const auto& [name, module] : plan.module_provided)
    if (!module.empty()) provided += (provided.empty() ? "" : ", ") + name;
  if (!provided.empty())
    out += "\nmetadata: " + std::string(metadata_name(plan.metadata)) + ": " +
           (plan.metadata == easybuild::MetadataPolicy::strip
                ? "Requires-Dist of " + provided + " dropped (the modules provide them)"
                : "Requires-Dist of " + provided + " kept");
  if (plan.module_file && plan.module_file->target)
    out += "\nmodule:   " + plan.module_file->target->file.string() + " (" +
           std::string(syntax_name(plan.module_file->syntax)) + ")";
  if (!plan.module_loads.empty()) {
    out += "\nmodule loads:";
    for (const auto& module : plan.module_loads) {
      const bool missing =
          std::ranges::find(plan.module_loads_missing, module) != plan.module_loads_missing.end();
      out += "\n  " + module + (missing ? "  (in no module tree here)" : "  (installed)");
    }
  }
  if (plan.resolution) out += "\ndownloads: " + plan.download_area.string();
  return out + "\nnothing was downloaded or written (--dry-run)\n";
}

std::string_view outcome_text(operations::InstallOutcome outcome) {
  switch (outcome) {
    case operations::InstallOutcome::installed:
      return "installed";
    case operations::InstallOutcome::already_installed:
      return "already installed";
    case operations::InstallOutcome::rechecked:
      return "already installed, checked again";
  }
  return "installed";
}

nlohmann::json to_json(const operations::InstallResult& result) {
  using nlohmann::json;
  const auto& install = result.install;
  json wheels = json::array();
  for (const auto& installed : install.wheels)
    wheels.push_back({{"name", installed.name},
                      {"version", installed.version},
                      {"dist_info", installed.dist_info.string()},
                      {"files", installed.files},
                      {"bytes", installed.bytes}});
  std::size_t relinked = 0;
  if (install.relink)
    for (const auto& file : install.relink->files)
      if (file.edit.method != elf::EditMethod::unchanged) ++relinked;
  json out{{"schema_version", 1},
           {"outcome", outcome_text(result.outcome)},
           {"prefix", install.prefix.string()},
           {"wheels", wheels},
           {"relinked_files", relinked},
           {"byte_compiled", install.compile.ran},
           {"pyc_files", install.compile.pyc_files.size()}};
  if (result.module_file) {
    out["module"] = result.module_file->string();
    out["module_name"] = result.module_name;
  }
  // Names from the wheels: through terminal_text, as the text output prints them.
  json startup = json::array();
  for (const auto& code : result.startup_code)
    startup.push_back({{"wheel", terminal_text(code.wheel)},
                       {"kind", code.kind},
                       {"path", terminal_text(code.path)},
                       {"module", terminal_text(code.module)},
                       {"why", terminal_text(code.why)}});
  out["startup_code"] = startup;
  out["rocm"] = result.rocm ? rocm_json(*result.rocm) : json(nullptr);
  if (result.rocm) out["rocm"]["removed_files"] = install.rocm_removed;
  return out;
}

std::string render_text(const operations::InstallResult& result) {
  const auto& install = result.install;
  std::string out;
  if (result.outcome != operations::InstallOutcome::installed)
    out += std::string(outcome_text(result.outcome)) + ": the prefix holds this resolution\n";
  for (const auto& installed : install.wheels)
    out += "installed  " + installed.name + " " + installed.version + "  (" +
           std::to_string(installed.files) + " files)\n";
  for (const auto& code : result.startup_code)
    out += "start-up code  " + terminal_text(code.wheel) + ": " + terminal_text(code.path) + "  (" +
           terminal_text(code.why) + ")\n";
  if (result.rocm) out += rocm_text(*result.rocm).substr(1) + "\n";
  out += "prefix: " + install.prefix.string() + "\n";
  if (result.module_file)
    out +=
        "module: " + result.module_file->string() + " (module load " + result.module_name + ")\n";
  if (!install.check) return out;
  out +=
      "check: " + std::to_string(install.check->files) + " ELF files load without LD_LIBRARY_PATH";
  if (!install.check->drivers.empty()) {
    std::string drivers;
    for (const auto& name : install.check->drivers) drivers += (drivers.empty() ? "" : ", ") + name;
    out += " (absent here, provided by the GPU driver on compute nodes: " + drivers + ")";
  }
  return out + "\n";
}

void add_module_options(CLI::App& sub, operations::InstallOptions& options, bool& strict) {
  sub.add_flag("--module", options.write_module,
               "Also write the module file, as `wheelmod module PREFIX` does (with --force, "
               "replace an existing one)");
  sub.add_flag("--strict", strict,
               "Fail (exit 6) instead of a warning: before unpacking, when a wheel installs "
               "start-up code into site-packages (a .pth file, sitecustomize, usercustomize, a "
               "top-level module named as a standard library module); with --module, when the "
               "module file loads a module no module tree has (its own tree and $MODULEPATH)");
  sub.add_option("--module-name", options.module_name,
                 "The module --module writes, as NAME/VERSION (default: the prefix's, when it is "
                 "an installation directory <software>/<Name>/<version>)")
      ->option_text("NAME/VERSION");
  sub.add_option("--modulepath", options.modulepath,
                 "Module tree for --module (default: <installpath>/modules beside software/)");
  sub.add_option("--module-naming-scheme", options.module_naming_scheme,
                 "EasyBuildMNS (flat: all/<Name>/<version>-<toolchain>...) or HierarchicalMNS "
                 "(Core, Compiler/<c>/<v>, MPI/<c>/<v>/<mpi>/<v> levels) (default: EasyBuild's "
                 "module-naming-scheme, else EasyBuildMNS)")
      ->option_text("EasyBuildMNS|HierarchicalMNS");
  sub.add_option("--syntax", options.module_syntax,
                 "Module syntax for --module: lua or tcl (default: EasyBuild's module-syntax, "
                 "else lua)")
      ->option_text("lua|tcl")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, emit::ModuleSyntax>{{"lua", emit::ModuleSyntax::lua},
                                                    {"tcl", emit::ModuleSyntax::tcl}},
          CLI::ignore_case));
}

}  // namespace

CommandRunner add_install_command(CLI::App& app) {
  auto command = std::make_shared<InstallCommand>();
  auto& options = command->options;
  auto* sub = app.add_subcommand(
      "install",
      "Resolve, fetch, unpack, relink and byte-compile wheels into an EasyBuild-style prefix, "
      "all or nothing");
  add_selection_options(*sub, options.selection, SpecArity::optional);
  add_download_options(*sub, options.download);
  sub->add_option("--wheel", options.wheels, "Install these wheel files instead of resolving");
  sub->add_option("--prefix", options.prefix,
                  "The installation directory (default: <installpath-software>/PyTorch/"
                  "<version>-<toolchain>[-CUDA-<v>]-whl, the name EasyBuild gives the easyconfig)");
  sub->add_option("--eb-installpath", options.eb_installpath,
                  "EasyBuild installpath holding software/NAME/VERSION (default: EasyBuild's own "
                  "configuration, $EASYBUILD_INSTALLPATH and its config files; and the EBROOT* "
                  "variables of loaded modules)");
  sub->add_option("--prefer-module", options.modules,
                  "Prefer this module where several provide a library (repeatable)")
      ->check(module_name_validator());
  sub->add_option("--python-exe", options.python_exe,
                  "Python to byte-compile with (default: $EBROOTPYTHON/bin/python)");
  sub->add_flag("--no-compile", options.no_compile, "Do not byte-compile");
  sub->add_flag("--force", options.force,
                "Replace an existing prefix (atomically, once the new one is complete)");
  sub->add_option("--clash-winner", options.clash_winners,
                  "Where two wheels of this install ship one file with different bytes, keep "
                  "PROJECT's (the other wheel's RECORD row is dropped); without it such a clash "
                  "is refused (repeatable)")
      ->option_text("PROJECT");
  sub->add_option("--metadata", options.metadata,
                  "strip: drop Requires-Dist lines modules satisfy (recorded in wheelmod.json); "
                  "keep: leave them for a dummy-package module (default: strip)")
      ->option_text("strip|keep")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, easybuild::MetadataPolicy>{
              {"strip", easybuild::MetadataPolicy::strip},
              {"keep", easybuild::MetadataPolicy::keep}},
          CLI::ignore_case));
  add_rocm_libraries_option(
      *sub, options.rocm_libraries,
      "ROCm wheels: take the bundled ROCm libraries the site's ROCm modules provide from the "
      "modules (auto: where the stack is the wheel's ROCm major.minor and the module is installed; "
      "modules: the same, an error where one cannot; bundled: keep the wheel as published)");
  sub->add_option("--threads", options.threads,
                  "Threads for unpacking and processes for byte-compiling (default: the CPUs this "
                  "process may use: its affinity and cgroup quota; 1 to 1024)")
      ->check(CLI::Range(1, 1024));
  sub->add_option("--patchelf", options.patchelf,
                  "patchelf program, used when a new RPATH does not fit in place in a program "
                  "(or an unusual library layout)");
  add_module_options(*sub, options, command->strict);
  sub->add_flag("--dry-run", command->dry_run,
                "Print the plan (the prefix, the wheels with their sha256, the modules and where "
                "each is, the relink, the module file) and stop: nothing is downloaded or written");
  add_format_option(*sub, command->format);
  sub->footer(
      "Example: wheelmod install torch==2.6.0 torchvision --toolchain foss-2024a --accelerator "
      "cuda --module");
  return [command](CommandContext& context) {
    auto reporter = make_stderr_reporter(context.global.verbosity);
    command->options.strict_modules = command->strict;
    command->options.strict_startup = command->strict;
    const auto plan = operations::plan_install(command->options, *reporter);
    if (command->dry_run) {
      context.out << (command->format == OutputFormat::json ? json_output(plan_json(plan))
                                                            : plan_text(plan));
      return;
    }
    const auto result = operations::execute_install(plan, *reporter);
    context.out << (command->format == OutputFormat::json ? json_output(to_json(result))
                                                          : render_text(result));
  };
}

}  // namespace wheelmod::cli
