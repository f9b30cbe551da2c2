// Stage 2. `wheelmod swapcheck`: for every package installed on torch A, whether it survives a
// swap to torch B. `wheelmod swap`: switch the canonical PyTorch module to another build when its
// dependents survive (or by force), applying the RPATH fixes; or back.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "swap/swapcheck.hpp"

namespace wheelmod::operations {

struct SwapcheckOptions {
  std::string current;
  std::string candidate;
  std::vector<std::string> dependents;  // prefixes, or software/ trees to scan
  bool fix = false;                     // re-point RPATH entries into the current prefix
};

struct SwapcheckResult {
  swap::SwapcheckReport report;
  std::optional<Error> failure;  // some dependent breaks: thrown after the output
};

SwapcheckResult swapcheck(const SwapcheckOptions& options);

struct SwapOptions {
  std::string modulepath;
  std::string name;  // the canonical module dependents load: PyTorch/2.6.0
  std::string to;    // the build to switch to; "" with rollback
  bool rollback = false;
  bool force = false;
  std::vector<std::string> dependents;  // "": the modules that name `name`
};

enum class SwapOutcome {
  unchanged,  // `name` already loads the target
  swapped,
  refused,  // dependents would break: nothing changed
};

struct SwapResult {
  SwapOutcome outcome = SwapOutcome::unchanged;
  std::string target;                           // the build `name` loads now (or would)
  std::optional<std::string> previous;          // the one it loaded before
  std::optional<swap::SwapcheckReport> report;  // of the dependents, when there was a build before
  std::optional<Error> failure;                 // refused: thrown after the output
};

/// Throws UsageError (options, a module without a root, nothing to roll back to).
SwapResult swap(const SwapOptions& options);

}  // namespace wheelmod::operations
