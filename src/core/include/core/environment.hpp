// The process environment as a value: the operations layer takes a Getenv with its options, so
// that what a command does depends on its arguments (a test or an embedding program passes its
// own), and only the command line reads the real environment (process_environment()).
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace wheelmod {

/// A variable's value, nullopt when it is not set.
using Getenv = std::function<std::optional<std::string>(const std::string&)>;

/// std::getenv.
Getenv process_environment();

}  // namespace wheelmod
