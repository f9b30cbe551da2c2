// `wheelmod check PREFIX`: every ELF file of a prefix resolved the way
// ld.so would, without LD_LIBRARY_PATH.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/environment.hpp"
#include "core/errors.hpp"
#include "prefix/check.hpp"

namespace wheelmod::operations {

struct CheckOptions {
  std::string prefix;
  std::vector<std::string> allowed;  // directories whose libraries are expected
  bool use_ld_library_path = false;
  bool strict = false;  // a prefix with no ELF file at all fails (exit 6) instead of a warning
  /// --modules: also whether every module the installation's module file loads is in a module
  /// tree (`modulepath`, else <installpath>/modules beside software/, and $MODULEPATH).
  bool modules = false;
  std::string modulepath;
  Getenv getenv = process_environment();
};

struct CheckResult {
  prefix::CheckSummary summary;
  std::optional<Error> failure;        // a library does not resolve: thrown after the output
  std::optional<std::string> warning;  // nothing was checked: no ELF file (a wrong directory?)
  std::vector<std::string> missing_modules;  // --modules: loaded by the module file, not installed
  std::vector<std::string> module_trees;     // --modules: where they were looked for
  /// ROCm installations: each library taken from a module built for another ROCm major.minor
  /// than the wheel's ("libamdhip64.so: HIP/6.3.3-...-ROCm-6.3.3 is ROCm 6.3, the wheel 6.4").
  std::vector<std::string> rocm_mismatches;
};

/// Throws IoError when the prefix cannot be walked.
CheckResult check(const CheckOptions& options);

}  // namespace wheelmod::operations
