#include "operations/module_file.hpp"

#include "core/errors.hpp"

namespace wheelmod::operations {

ModuleFilePlan plan_module_file(emit::ModuleRequest request, const SiteSettings& site,
                                const easybuild::Generation& generation,
                                const ModuleFileChoice& choice) {
  const auto layout = module_layout(site, choice.layout, generation, request.prefix);
  request.naming = layout.naming;
  ModuleFilePlan plan{std::move(request), std::nullopt, layout.syntax, choice.site_templates,
                      choice.replace};
  if (choice.render_only) return plan;
  if (!layout.modulepath)
    throw UsageError(
        plan.request.prefix.string(),
        "not in an EasyBuild layout (<installpath>/software/<Name>/<version>)",
        std::string("pass --modulepath DIR") + (choice.offers_stdout ? ", or --stdout" : ""));
  // HierarchicalMNS makes no moduleclass links (module_target).
  plan.target = emit::module_target(emit::module_identity(plan.request), *layout.modulepath,
                                    choice.moduleclass, layout.syntax, layout.suffix);
  emit::check_module_target(*plan.target, choice.replace);
  return plan;
}

WrittenModule write_module_file(const ModuleFilePlan& plan, PythonMismatch mismatch,
                                Reporter& reporter) {
  const auto description = emit::describe_installation(plan.request);
  for (const auto& warning : description.warnings) reporter.on_warning(warning);
  if (!description.python_mismatch.empty()) {
    if (mismatch == PythonMismatch::refuse)
      throw UsageError(plan.request.prefix.string(), description.python_mismatch,
                       "reinstall for the module's Python (install --python), or pass --force "
                       "to write the module anyway");
    reporter.on_warning(description.python_mismatch);
  }
  const emit::TemplateSet templates(emit::TemplateSet::default_dir(), plan.site_templates);
  WrittenModule written;
  written.module = description.identity.name + "/" + description.identity.full_version;
  written.text = emit::render_module(description, plan.syntax, templates);
  if (plan.target) {
    emit::write_module(*plan.target, written.text, plan.replace);
    written.file = plan.target->file;
  }
  return written;
}

}  // namespace wheelmod::operations
