// `wheelmod tags`: the wheel tags a target accepts, best first, as pip (`pip debug --verbose`).
#pragma once

#include <string>
#include <vector>

#include "pep/tags.hpp"

namespace wheelmod::operations {

struct TagsOptions {
  std::string python;  // X.Y or X.Yt; "": python3 on PATH
  std::string arch;    // "": this host's
  std::string glibc;   // 2.NN; "": this host's
};

struct TagsResult {
  pep::TagTarget target;
  std::vector<pep::Tag> tags;  // best first
};

/// Throws UsageError naming the option that is wrong.
TagsResult tags(const TagsOptions& options);

}  // namespace wheelmod::operations
