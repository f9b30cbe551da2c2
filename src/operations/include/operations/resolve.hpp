// `wheelmod resolve`: which wheels a toolchain and accelerator get, from where, with which hashes,
// what they need and which EasyBuild modules provide it; a dry run: pages and metadata only.
#pragma once

#include <string>
#include <vector>

#include "core/reporter.hpp"
#include "operations/selection.hpp"
#include "resolve/report.hpp"

namespace wheelmod::operations {

/// Throws as resolve_selection does.
resolve::ResolveReport resolve(const Selection& selection, Reporter& reporter,
                               const SiteModules& site = {});

}  // namespace wheelmod::operations
