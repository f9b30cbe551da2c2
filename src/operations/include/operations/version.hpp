// wheelmod's own version, as the binary, the provenance files, the module
// files and the easyconfigs' build dependency give it.
#pragma once

#include <string>

namespace wheelmod::operations {

/// "0.1.0" (CMake's PROJECT_VERSION).
std::string wheelmod_version();

}  // namespace wheelmod::operations
