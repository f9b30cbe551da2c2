#include "operations/module.hpp"

#include "core/errors.hpp"
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
  const auto config = load_site_config(options.config_dir, provenance.toolchain);
  const auto* generation = config.find_generation(provenance.toolchain);
  const auto layout =
      module_layout(site_settings(""), {options.naming_scheme, options.syntax, options.modulepath},
                    generation ? *generation : easybuild::Generation{}, request.prefix);
  request.naming = layout.naming;
  const auto description = emit::describe_installation(request);
  const auto replace = options.force ? emit::ReplaceModule::yes : emit::ReplaceModule::no;
  ModuleResult result;
  result.module = description.identity.name + "/" + description.identity.full_version;
  if (!options.to_stdout) {
    if (!layout.modulepath)
      throw UsageError(request.prefix.string(),
                       "not in an EasyBuild layout (<installpath>/software/<Name>/<version>)",
                       "pass --modulepath DIR, or --stdout");
    // HierarchicalMNS makes no moduleclass links (module_target).
    result.target = emit::module_target(description.identity, *layout.modulepath,
                                        options.moduleclass, layout.syntax, layout.suffix);
    emit::check_module_target(*result.target, replace);
  }
  for (const auto& warning : description.warnings) reporter.on_warning(warning);
  // A module whose Python cannot import the install is not written without --force; printed
  // with --stdout, with the warning.
  if (!description.python_mismatch.empty()) {
    if (!options.force && !options.to_stdout)
      throw UsageError(request.prefix.string(), description.python_mismatch,
                       "reinstall for the module's Python (install --python), or pass --force "
                       "to write the module anyway");
    reporter.on_warning(description.python_mismatch);
  }
  const emit::TemplateSet templates(
      emit::TemplateSet::default_dir(),
      options.templates.empty() ? std::nullopt : std::optional<fs::path>(options.templates));
  result.text = emit::render_module(description, layout.syntax, templates);
  if (result.target) emit::write_module(*result.target, result.text, replace);
  return result;
}

}  // namespace wheelmod::operations
