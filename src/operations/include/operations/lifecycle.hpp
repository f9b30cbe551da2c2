// What wheelmod installed at a site, and taking an installation away again with its module:
// `wheelmod list` and `wheelmod uninstall`.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/reporter.hpp"

namespace wheelmod::operations {

/// One installation wheelmod made, from its provenance (prefix/provenance.hpp).
struct Installation {
  std::string name;  // PyTorch/2.6.0-foss-2024a-CUDA-12.6.0-whl (relative to the software path)
  std::filesystem::path prefix;
  std::string toolchain;
  std::string accelerator;
  std::string torch;  // the torch version installed, "" when none
  std::string index;
  std::string installed_at;  // the provenance file's modification time, UTC
};

/// The installations under the software path (--eb-installpath, else EasyBuild's) that carry
/// wheelmod's provenance, sorted by name. Others (eb's) are not listed; one whose provenance
/// does not read (damaged, or a field edited out of the shapes wheelmod writes) is left out with
/// a warning naming it.
std::vector<Installation> list_installations(const std::string& eb_installpath, Reporter& reporter);

struct UninstallOptions {
  std::string target;          // a prefix, or NAME/VERSION under the software path
  std::string eb_installpath;  // "": EasyBuild's configuration
  std::string modulepath;      // "": EasyBuild's installpath-modules, else beside software/
  bool force = false;          // also when other modules depend on it
};

struct UninstallResult {
  std::filesystem::path prefix;
  std::vector<std::filesystem::path> module_files;  // removed: the file and its moduleclass link
};

/// Removes a wheelmod installation and its module file and moduleclass link, under the prefix
/// lock and EasyBuild's lock. Throws UsageError when the target is no wheelmod installation, or
/// (without `force`) when module files of the tree load it (their names in the details).
UninstallResult uninstall(const UninstallOptions& options, Reporter& reporter);

}  // namespace wheelmod::operations
