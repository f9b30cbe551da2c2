// wheelmod's own version, as the binary, provenance, module files and easyconfigs give it, and
// what --version reports about the build it runs as.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace wheelmod::operations {

/// "0.1.0" (CMake's PROJECT_VERSION).
std::string wheelmod_version();

/// What a bug report needs: which build, which data, which libraries at run time.
struct BuildInfo {
  std::string version;         // 0.1.0
  std::string git_commit;      // `git describe` of the source tree at build time, or "unknown"
  std::string data_directory;  // where config/ and templates/ are read, and why; or the error
  std::vector<std::pair<std::string, std::string>> libraries;  // name -> version
};

BuildInfo build_info();

}  // namespace wheelmod::operations
