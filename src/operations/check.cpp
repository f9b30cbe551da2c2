#include "operations/check.hpp"

#include "core/timings.hpp"
#include "prefix/provenance.hpp"

namespace wheelmod::operations {

CheckResult check(const CheckOptions& options) {
  prefix::CheckOptions check;
  check.use_ld_library_path = options.use_ld_library_path;
  for (const auto& root : options.allowed) check.allowed_roots.emplace_back(root);
  // Without --allow: the software path the installation was relinked at, as its provenance
  // records it (a prefix wheelmod did not make has none: only the system is expected then).
  if (options.allowed.empty()) {
    const timings::Scope phase("settings");
    try {
      const auto provenance = prefix::read_provenance(options.prefix);
      if (!provenance.software_path.empty())
        check.allowed_roots.emplace_back(provenance.software_path);
    } catch (const Error&) {
    }
  }
  CheckResult result{prefix::check_prefix(options.prefix, check), std::nullopt, std::nullopt};
  if (!result.summary.passed()) result.failure = prefix::check_failure(result.summary);
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
