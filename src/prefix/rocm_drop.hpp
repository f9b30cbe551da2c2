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

/// For each library that stays bundled in torch/lib under its link name and whose
/// SONAME (libamdhip64.so.6) some ELF file of site-packages needs: a link torch/lib/<SONAME> ->
/// <link name>, as ldconfig(8) makes one for every library of a directory it processes, added to
/// the RECORD of the wheel that installed the library. torchvision's _C.so, built against ROCm,
/// needs libamdhip64.so.6; it loads after `import torch` only because ld.so reuses the object
/// loaded under that SONAME, and alone (ldd, check) not at all. Through the link ld.so opens the
/// same file, which it recognises as loaded (same device and inode). Returns the links made,
/// relative to site-packages. Throws IoError.
std::vector<std::string> link_bundled_sonames(const std::filesystem::path& root,
                                              const std::filesystem::path& site_packages,
                                              const std::vector<wheel::InstalledWheel>& wheels);

/// The projects installed in `site_packages` (below `root`) as their RECORDs list them, for
/// drop_module_provided_rocm on an installed prefix. Throws IoError for an unreadable RECORD.
std::vector<wheel::InstalledWheel> installed_wheels(const std::filesystem::path& root,
                                                    const std::filesystem::path& site_packages);

}  // namespace wheelmod::prefix
