// wheelmod's own version, as the binary, provenance, module files and easyconfigs give it.
#pragma once

#include <string>

namespace wheelmod::operations {

/// "0.1.0" (CMake's PROJECT_VERSION).
std::string wheelmod_version();

}  // namespace wheelmod::operations
