// `wheelmod module PREFIX`: the options of operations::module; the module
// file with --stdout, else where it was written and how to load it.
#include <map>
#include <memory>
#include <ostream>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "operations/module.hpp"

namespace wheelmod::cli {

namespace {

void run_module(const operations::ModuleOptions& options, CommandContext& context) {
  auto reporter = make_stderr_reporter(context.global.verbosity);
  const auto result = operations::module(options, *reporter);
  if (!result.target) {
    context.out << result.text;
    return;
  }
  const auto& target = *result.target;
  const auto modules_all = target.file.parent_path().parent_path();
  context.out << "module: " << result.module << "\n"
              << "file: " << target.file.string() << "\n"
              << "link: " << target.symlink.string() << " -> " << target.link_to.string() << "\n"
              << "load: module use " << modules_all.string() << " && module load " << result.module
              << "\n";
}

}  // namespace

CommandRunner add_module_command(CLI::App& app) {
  auto options = std::make_shared<operations::ModuleOptions>();
  auto* sub = app.add_subcommand(
      "module",
      "Write the Lmod (Lua) or Tcl module file for a prefix `wheelmod install` made, as "
      "EasyBuild 5 writes them, into <modulepath>/all/<Name>/<fullversion>[.lua]");
  sub->add_option("PREFIX", options->prefix,
                  "The installation (<installpath>/software/<Name>/<fullversion>)")
      ->required();
  sub->add_option("--module-naming-scheme", options->naming_scheme,
                  "EasyBuildMNS or HierarchicalMNS (default: EasyBuild's module-naming-scheme, "
                  "else EasyBuildMNS)")
      ->option_text("EasyBuildMNS|HierarchicalMNS");
  sub->add_option("--config", options->config_dir,
                  "Site tables (toolchains.yaml) over the shipped ones: the toolchains' compiler "
                  "and MPI place a HierarchicalMNS module");
  sub->add_option("--syntax", options->syntax,
                  "lua (Lmod) or tcl (default: EasyBuild's module-syntax, else lua)")
      ->option_text("lua|tcl")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, emit::ModuleSyntax>{{"lua", emit::ModuleSyntax::lua},
                                                    {"tcl", emit::ModuleSyntax::tcl}},
          CLI::ignore_case));
  sub->add_option("--modulepath", options->modulepath,
                  "The module tree (default: EasyBuild's installpath-modules, else "
                  "<installpath>/modules beside software/)");
  sub->add_option(
      "--moduleclass", options->moduleclass,
      "EasyBuild moduleclass of the link <modulepath>/<class>/<Name>/... (default: ai)");
  sub->add_option("--name", options->name, "Module name (default: the prefix's parent directory)");
  sub->add_option("--full-version", options->full_version,
                  "Module version (default: the prefix's directory name)");
  sub->add_option("--description", options->description,
                  "Description for help and whatis (default: the main wheel's Summary and a line "
                  "naming where the wheels came from)");
  sub->add_option("--origin", options->origin,
                  "Where the wheels came from, for the description (e.g. pytorch.org)");
  sub->add_option("--python-search-path", options->python_search_path,
                  "PYTHONPATH, EBPYTHONPREFIXES, or auto: EBPYTHONPREFIXES only when "
                  "site-packages holds a .pth file (default: auto)")
      ->option_text("auto|PYTHONPATH|EBPYTHONPREFIXES")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, emit::PythonSearchPath>{
              {"auto", emit::PythonSearchPath::automatic},
              {"PYTHONPATH", emit::PythonSearchPath::pythonpath},
              {"EBPYTHONPREFIXES", emit::PythonSearchPath::ebpythonprefixes}},
          CLI::ignore_case));
  sub->add_option("--templates", options->templates,
                  "Directory with site templates (module.lua.mustache, module.tcl.mustache) used "
                  "before the shipped ones");
  sub->add_flag("--stdout", options->to_stdout, "Print the module file instead of writing it");
  sub->add_flag("--force", options->force, "Replace an existing module file (atomically)");
  sub->add_flag("--strict", options->strict,
                "Fail (exit 6) when the module loads a module no module tree has (its own tree "
                "and $MODULEPATH), instead of a warning");
  sub->footer(
      "Example: wheelmod module /apps/eb/software/PyTorch/2.6.0-foss-2024a-CUDA-12.6.0-whl");
  return [options](CommandContext& context) { run_module(*options, context); };
}

}  // namespace wheelmod::cli
