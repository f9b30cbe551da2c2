#include "operations/check.hpp"

#include <filesystem>
#include <system_error>

#include "core/strings.hpp"
#include "core/timings.hpp"
#include "emit/module_writer.hpp"
#include "operations/module_file.hpp"
#include "prefix/provenance.hpp"

namespace wheelmod::operations {

namespace fs = std::filesystem;

namespace {

// --modules: the module file's dependencies (as `wheelmod module` writes them) in the trees.
void check_modules(const CheckOptions& options, CheckResult& result) {
  emit::ModuleRequest request;
  request.prefix = std::filesystem::absolute(options.prefix).lexically_normal();
  const auto description = emit::describe_installation(request);
  const auto own = options.modulepath.empty()
                       ? emit::default_modulepath(request.prefix)
                       : std::optional(std::filesystem::path(options.modulepath));
  const auto trees = module_trees(own, options.getenv);
  for (const auto& tree : trees) result.module_trees.push_back(tree.string());
  result.missing_modules = missing_modules(description.dependencies, trees);
  if (result.missing_modules.empty() || result.failure) return;
  result.failure = CheckFailedError(
      options.prefix,
      "its module file loads " + join(result.missing_modules, ", ") +
          ", which no module tree has (looked in " +
          (result.module_trees.empty() ? std::string("none") : join(result.module_trees, ", ")) +
          ")",
      "install them (eb --robot), or give the tree that has them with --modulepath or "
      "$MODULEPATH");
}

}  // namespace

CheckResult check(const CheckOptions& options) {
  prefix::CheckOptions check;
  check.use_ld_library_path = options.use_ld_library_path;
  for (const auto& root : options.allowed) check.allowed_roots.emplace_back(root);
  // The software path the installation was relinked at, and the libraries it takes from modules,
  // as its provenance records them (a prefix wheelmod did not make has none: only the system and
  // --allow are expected then). One that is there but does not read (damaged, or a field edited
  // out of the shapes wheelmod writes) is refused, naming the field, as every command refuses it.
  {
    const timings::Scope phase("settings");
    std::error_code error;
    if (fs::exists(options.prefix / prefix::k_provenance_file, error)) {
      const auto provenance = prefix::read_provenance(options.prefix);
      if (!provenance.software_path.empty())
        check.allowed_roots.emplace_back(provenance.software_path);
      check.module_libraries = provenance.module_libraries;
    }
  }
  CheckResult result{
      prefix::check_prefix(options.prefix, check), std::nullopt, std::nullopt, {}, {}};
  if (!result.summary.passed()) result.failure = prefix::check_failure(result.summary);
  if (options.modules) check_modules(options, result);
  // "Every library resolves" of a directory with no library says nothing: most likely the
  // wrong directory (the module tree, a parent of the prefix, an empty one).
  if (result.summary.files == 0) {
    const std::string what = options.prefix + " has no ELF file to check";
    const std::string hint = "give the installation prefix (the directory holding lib/pythonX.Y/)";
    if (options.strict)
      result.failure = CheckFailedError(options.prefix, "no ELF file to check", hint);
    else
      result.warning = what + "; " + hint;
  }
  return result;
}

}  // namespace wheelmod::operations
