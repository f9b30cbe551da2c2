#include "operations/module.hpp"

#include "operations/module_file.hpp"
#include "operations/selection.hpp"
#include "operations/site.hpp"
#include "operations/version.hpp"
#include "prefix/provenance.hpp"

namespace wheelmod::operations {

namespace fs = std::filesystem;

ModuleResult module(const ModuleOptions& options, Reporter& reporter) {
  emit::ModuleRequest request;
  request.prefix = fs::absolute(options.prefix).lexically_normal();
  if (request.prefix.filename().empty()) request.prefix = request.prefix.parent_path();  // "dir/"
  request.name = options.name;
  request.full_version = options.full_version;
  request.description = options.description;
  request.origin = options.origin;
  request.python_search_path = options.python_search_path;
  request.generator = "wheelmod " + wheelmod_version();

  // The prefix first: "not an installation wheelmod made" is the message
  // that helps most when PREFIX is wrong.
  const auto provenance = prefix::read_provenance(request.prefix);
  request.toolchain = provenance.toolchain;  // the naming scheme's level (HierarchicalMNS)
  const auto config = load_site_config(options.config_dir, provenance.toolchain);
  const auto* generation = config.find_generation(provenance.toolchain);
  ModuleFileChoice choice;
  choice.layout = {options.naming_scheme, options.syntax, options.modulepath};
  choice.moduleclass = options.moduleclass;
  if (!options.templates.empty()) choice.site_templates = fs::path(options.templates);
  choice.replace = options.force ? emit::ReplaceModule::yes : emit::ReplaceModule::no;
  choice.render_only = options.to_stdout;
  choice.offers_stdout = true;
  choice.strict = options.strict;
  choice.getenv = options.getenv;
  const auto plan = plan_module_file(std::move(request), site_settings("", options.getenv),
                                     generation ? *generation : easybuild::Generation{}, choice);
  // A module whose Python cannot import the install is not written without --force; printed
  // with --stdout, with the warning.
  const auto written = write_module_file(
      plan, options.force || options.to_stdout ? PythonMismatch::warn : PythonMismatch::refuse,
      reporter);
  return {written.module, written.text, plan.target};
}

}  // namespace wheelmod::operations
