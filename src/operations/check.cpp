#include "operations/check.hpp"

namespace wheelmod::operations {

CheckResult check(const CheckOptions& options) {
  prefix::CheckOptions check;
  check.use_ld_library_path = options.use_ld_library_path;
  for (const auto& root : options.allowed) check.allowed_roots.emplace_back(root);
  CheckResult result{prefix::check_prefix(options.prefix, check), std::nullopt};
  if (!result.summary.passed()) result.failure = prefix::check_failure(result.summary);
  return result;
}

}  // namespace wheelmod::operations
