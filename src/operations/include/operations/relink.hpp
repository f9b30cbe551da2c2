// `wheelmod relink PREFIX`: the ELF files of an installed prefix get their search paths
// re-pointed from the nvidia-* wheel directories at the site's CUDA / cuDNN / NCCL modules.
#pragma once

#include <string>
#include <vector>

#include "core/environment.hpp"
#include "core/reporter.hpp"
#include "easybuild/rocm_libraries.hpp"
#include "prefix/relink.hpp"

namespace wheelmod::operations {

struct RelinkOptions {
  std::string prefix;
  std::string toolchain;             // the one the prefix was installed for
  std::string eb_installpath;        // "": the EBROOT* variables of loaded modules
  std::vector<std::string> modules;  // preferred where several provide a library
  std::string config_dir;
  std::string patchelf = "patchelf";
  bool runpath = false;  // write DT_RUNPATH instead of DT_RPATH
  /// ROCm builds of torch: auto re-points the libraries an install took from modules; modules
  /// also removes the bundled copies the modules provide; bundled leaves ROCm alone.
  easybuild::RocmLibraryMode rocm_libraries = easybuild::RocmLibraryMode::automatic;
  bool dry_run = false;
  Getenv getenv = process_environment();  // EasyBuild's configuration, the loaded modules
};

/// Throws UsageError (unknown toolchain, not a prefix), CheckFailedError
/// (a library no module provides; nothing is changed), IoError.
prefix::RelinkReport relink(const RelinkOptions& options, Reporter& reporter);

}  // namespace wheelmod::operations
