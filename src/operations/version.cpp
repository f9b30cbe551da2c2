#include "operations/version.hpp"

namespace wheelmod::operations {

std::string wheelmod_version() { return WHEELMOD_VERSION; }

}  // namespace wheelmod::operations
