// Private to src/prefix: the step of an install that takes a ROCm wheel's bundled libraries from
// the site's modules (easybuild/rocm_libraries.hpp): each copy a module provides, and its data,
// leaves the staged tree and its RECORD; relink then adds the module's directory where a file
// needs it.
#pragma once

#include <filesystem>
#include <vector>

#include "easybuild/rocm_libraries.hpp"
#include "wheel/installer.hpp"

namespace wheelmod::prefix {

/// Removes from the staged `site_packages` (below `root`) torch/lib/<file> of every library
/// `plan` takes from a module, and its wheel data, and drops their rows from the RECORD of the
/// wheel that installed them. A copy whose DT_SONAME differs from the module file's stops the
/// install (CheckFailedError, exit 6): the module would be another library. Returns the files
/// removed, relative to site-packages. Throws IoError.
std::vector<std::string> drop_module_provided_rocm(
    const std::filesystem::path& root, const std::filesystem::path& site_packages,
    const easybuild::RocmPlan& plan, const std::vector<wheel::InstalledWheel>& wheels);

/// The projects installed in `site_packages` (below `root`) as their RECORDs list them, for
/// drop_module_provided_rocm on an installed prefix. Throws IoError for an unreadable RECORD.
std::vector<wheel::InstalledWheel> installed_wheels(const std::filesystem::path& root,
                                                    const std::filesystem::path& site_packages);

}  // namespace wheelmod::prefix
