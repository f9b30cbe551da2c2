// `wheelmod module PREFIX`: the Lmod (Lua) or Tcl module file for a prefix
// that `wheelmod install` made, written atomically into an EasyBuild
// module tree, or printed with --stdout.
#include <map>
#include <memory>
#include <optional>
#include <ostream>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "core/errors.hpp"
#include "easybuild/module_writer.hpp"
#include "prefix/install.hpp"

namespace wheelmod::cli {

namespace {

namespace fs = std::filesystem;
namespace eb = easybuild;

struct ModuleCommandOptions {
  std::string prefix;
  eb::ModuleSyntax syntax = eb::ModuleSyntax::lua;
  std::string modulepath;
  std::string moduleclass = "ai";
  std::string name;
  std::string full_version;
  std::string description;
  std::string origin;
  eb::PythonSearchPath python_search_path = eb::PythonSearchPath::automatic;
  std::string templates;
  bool to_stdout = false;
  bool force = false;
};

void run_module(const ModuleCommandOptions& options, CommandContext& context) {
  eb::ModuleRequest request;
  request.prefix = fs::absolute(options.prefix).lexically_normal();
  if (request.prefix.filename().empty()) request.prefix = request.prefix.parent_path();  // "dir/"
  request.provenance_file = request.prefix / prefix::k_provenance_file;
  request.name = options.name;
  request.full_version = options.full_version;
  request.description = options.description;
  request.origin = options.origin;
  request.python_search_path = options.python_search_path;
  request.generator = std::string("wheelmod ") + WHEELMOD_VERSION;

  // The prefix first: "not an installation wheelmod made" is the message
  // that helps most when PREFIX is wrong.
  const auto description = eb::describe_installation(request);
  std::optional<eb::ModuleTarget> target;
  if (!options.to_stdout) {
    const auto modulepath = options.modulepath.empty()
                                ? eb::default_modulepath(request.prefix)
                                : std::optional<fs::path>(fs::absolute(options.modulepath));
    if (!modulepath)
      throw UsageError(request.prefix.string(),
                       "not in an EasyBuild layout (<installpath>/software/<Name>/<version>)",
                       "pass --modulepath DIR, or --stdout");
    target =
        eb::module_target(description.identity, *modulepath, options.moduleclass, options.syntax);
    eb::check_module_target(*target,
                            options.force ? eb::ReplaceModule::yes : eb::ReplaceModule::no);
  }
  if (context.global.verbosity != Verbosity::quiet)
    for (const auto& warning : description.warnings) context.err << "warning: " << warning << '\n';
  const eb::TemplateSet templates(
      eb::TemplateSet::default_dir(),
      options.templates.empty() ? std::nullopt : std::optional<fs::path>(options.templates));
  const std::string text = eb::render_module(description, options.syntax, templates);
  if (!target) {
    context.out << text;
    return;
  }
  eb::write_module(*target, text, options.force ? eb::ReplaceModule::yes : eb::ReplaceModule::no);
  const auto modules_all = target->file.parent_path().parent_path();
  const auto name = description.identity.name + "/" + description.identity.full_version;
  context.out << "module: " << name << "\n"
              << "file: " << target->file.string() << "\n"
              << "link: " << target->symlink.string() << " -> " << target->link_to.string() << "\n"
              << "load: module use " << modules_all.string() << " && module load " << name << "\n";
}

}  // namespace

CommandRunner add_module_command(CLI::App& app) {
  auto options = std::make_shared<ModuleCommandOptions>();
  auto* sub = app.add_subcommand(
      "module",
      "Write the Lmod (Lua) or Tcl module file for a prefix `wheelmod install` made, as "
      "EasyBuild 5 writes them, into <modulepath>/all/<Name>/<fullversion>[.lua]");
  sub->add_option("PREFIX", options->prefix,
                  "The installation (<installpath>/software/<Name>/<fullversion>)")
      ->required();
  sub->add_option("--syntax", options->syntax, "lua (Lmod) or tcl (default: lua)")
      ->option_text("lua|tcl")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, eb::ModuleSyntax>{{"lua", eb::ModuleSyntax::lua},
                                                  {"tcl", eb::ModuleSyntax::tcl}},
          CLI::ignore_case));
  sub->add_option("--modulepath", options->modulepath,
                  "The module tree (default: <installpath>/modules beside software/)");
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
          std::map<std::string, eb::PythonSearchPath>{
              {"auto", eb::PythonSearchPath::automatic},
              {"PYTHONPATH", eb::PythonSearchPath::pythonpath},
              {"EBPYTHONPREFIXES", eb::PythonSearchPath::ebpythonprefixes}},
          CLI::ignore_case));
  sub->add_option("--templates", options->templates,
                  "Directory with site templates (module.lua.mustache, module.tcl.mustache) used "
                  "before the shipped ones");
  sub->add_flag("--stdout", options->to_stdout, "Print the module file instead of writing it");
  sub->add_flag("--force", options->force, "Replace an existing module file (atomically)");
  return [options](CommandContext& context) { run_module(*options, context); };
}

}  // namespace wheelmod::cli
