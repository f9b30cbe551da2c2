#include "operations/module_file.hpp"

#include <set>
#include <system_error>

#include "core/errors.hpp"
#include "core/strings.hpp"

namespace wheelmod::operations {

namespace fs = std::filesystem;

std::vector<fs::path> module_trees(const std::optional<fs::path>& own, const Getenv& getenv) {
  std::vector<fs::path> trees;
  if (own) trees.push_back(*own);
  const std::string modulepath = (getenv ? getenv("MODULEPATH") : std::nullopt).value_or("");
  std::string_view rest = modulepath;
  while (!rest.empty()) {
    const auto colon = rest.find(':');
    const auto entry = rest.substr(0, colon);
    if (!entry.empty() && std::ranges::find(trees, fs::path(entry)) == trees.end())
      trees.emplace_back(entry);
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return trees;
}

std::vector<std::string> missing_modules(const std::vector<std::string>& dependencies,
                                         const std::vector<fs::path>& trees) {
  // Every Name/version the trees hold, from the files' last two path parts.
  constexpr int k_depth = 8;
  std::set<std::string> present;
  for (const auto& tree : trees) {
    std::error_code error;
    fs::recursive_directory_iterator it(tree, fs::directory_options::skip_permission_denied, error);
    for (; !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
      if (it.depth() + 1 >= k_depth) it.disable_recursion_pending();
      std::error_code type_error;
      if (it->is_directory(type_error)) continue;
      auto version = it->path().filename().string();
      if (version.ends_with(".lua")) version.resize(version.size() - 4);
      present.insert(it->path().parent_path().filename().string() + "/" + version);
    }
  }
  std::vector<std::string> missing;
  for (const auto& module : dependencies)
    if (!present.contains(module)) missing.push_back(module);
  return missing;
}

ModuleFilePlan plan_module_file(emit::ModuleRequest request, const SiteSettings& site,
                                const easybuild::Generation& generation,
                                const ModuleFileChoice& choice) {
  const auto layout = module_layout(site, choice.layout, generation, request.prefix);
  request.naming = layout.naming;
  ModuleFilePlan plan{std::move(request), std::nullopt,
                      layout.syntax,      choice.site_templates,
                      choice.replace,     module_trees(layout.modulepath, choice.getenv),
                      choice.strict};
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
  WrittenModule written;
  // A module file whose dependencies are not installed is written without a word by EasyBuild's
  // own `--module-only` too, but `module load` then fails on every node: said here, before.
  written.missing = missing_modules(description.dependencies, plan.module_trees);
  if (!written.missing.empty()) {
    std::string looked;
    for (const auto& tree : plan.module_trees)
      looked += (looked.empty() ? "" : ", ") + tree.string();
    const std::string what = "the module loads " + join(written.missing, ", ") +
                             ", which no module tree here has (looked in " +
                             (looked.empty() ? std::string("none") : looked) + ")";
    if (plan.strict)
      throw CheckFailedError(plan.request.prefix.string(), what,
                             "install them (eb --robot), or add their tree to $MODULEPATH");
    reporter.on_warning(what + ": `module load` fails until they are installed");
  }
  const emit::TemplateSet templates(emit::TemplateSet::default_dir(), plan.site_templates);
  written.module = description.identity.name + "/" + description.identity.full_version;
  written.text = emit::render_module(description, plan.syntax, templates);
  if (plan.target) {
    emit::write_module(*plan.target, written.text, plan.replace);
    written.file = plan.target->file;
  }
  return written;
}

}  // namespace wheelmod::operations
