#include "operations/check.hpp"

#include <filesystem>
#include <system_error>

#include "core/strings.hpp"
#include "core/timings.hpp"
#include "easybuild/rocm_libraries.hpp"
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

// The ROCm release a module is built for, from its name: the -ROCm-<v> of its versionsuffix or
// of its toolchain (rocm-compilers-19.0.0-ROCm-6.4.1); nullopt when it names none (numactl).
std::optional<std::string> rocm_of_module(const std::string& module) {
  const auto at = module.rfind("-ROCm-");
  if (at == std::string::npos) return std::nullopt;
  return easybuild::rocm_major_minor(module.substr(at + 6));
}

// A ROCm wheel's libraries taken from modules of another ROCm major.minor than the wheel's are
// two ROCm releases in one process: reported as a CUDA major mismatch is (an edited provenance,
// or a relink against another generation's stack).
void check_rocm(const prefix::Provenance& provenance, CheckResult& result) {
  if (!provenance.rocm || provenance.rocm->wheel.empty()) return;
  const auto& rocm = *provenance.rocm;
  for (const auto& library : rocm.libraries) {
    if (library.module.empty()) continue;
    auto built_for = rocm_of_module(library.module);
    if (!built_for && !library.module_rocm.empty())
      built_for = easybuild::rocm_major_minor(library.module_rocm);
    if (built_for && *built_for != rocm.wheel)
      result.rocm_mismatches.push_back(library.file + ": " + library.module + " is ROCm " +
                                       *built_for + ", the wheel ROCm " + rocm.wheel);
  }
  if (result.rocm_mismatches.empty() || result.failure) return;
  CheckFailedError error(provenance.site_packages.empty() ? "check" : provenance.site_packages,
                         "ROCm mismatch: " + std::to_string(result.rocm_mismatches.size()) +
                             " bundled ROCm libraries come from modules of another ROCm release "
                             "than the wheel's",
                         "reinstall with a wheel of the modules' ROCm (--accelerator rocmX.Y), or "
                         "with --rocm-libraries bundled");
  for (const auto& line : result.rocm_mismatches) error.with_detail(line);
  result.failure = std::move(error);
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
  std::optional<prefix::Provenance> provenance;
  {
    const timings::Scope phase("settings");
    std::error_code error;
    if (fs::exists(options.prefix / prefix::k_provenance_file, error)) {
      provenance = prefix::read_provenance(options.prefix);
      if (!provenance->software_path.empty())
        check.allowed_roots.emplace_back(provenance->software_path);
      check.module_libraries = provenance->module_libraries;
    }
  }
  CheckResult result{
      prefix::check_prefix(options.prefix, check), std::nullopt, std::nullopt, {}, {}, {}};
  if (!result.summary.passed()) result.failure = prefix::check_failure(result.summary);
  if (provenance) check_rocm(*provenance, result);
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
