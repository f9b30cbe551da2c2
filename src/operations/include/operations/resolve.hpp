// `wheelmod resolve`: which wheels a toolchain and accelerator get, from where, with which hashes,
// what they need and which EasyBuild modules provide it; a dry run: pages and metadata only.
#pragma once

#include <string>
#include <vector>

#include "core/reporter.hpp"
#include "operations/selection.hpp"
#include "resolve/report.hpp"

namespace wheelmod::operations {

/// Where resolve reads the site's installed modules, so that it names the modules install then
/// links: --eb-installpath, else EasyBuild's configured installpath when its software directory
/// exists (and the loaded modules' EBROOT*). Neither: the table alone names them ("table").
struct SiteModules {
  std::string eb_installpath;
  std::vector<std::string> preferred;  // --prefer-module
};

/// Throws as resolve_selection does.
resolve::ResolveReport resolve(const Selection& selection, Reporter& reporter,
                               const SiteModules& site = {});

}  // namespace wheelmod::operations
