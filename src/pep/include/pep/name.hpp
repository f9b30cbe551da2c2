// Project names: PEP 503 normalisation and PEP 508 validity.
#pragma once

#include <string>
#include <string_view>

namespace wheelmod::pep {

/// PEP 503 "Normalized Names": runs of `-`, `_`, `.` become one `-`,
/// lower case (`Typing_Extensions` -> `typing-extensions`).
std::string canonicalize_name(std::string_view name);

/// PEP 508 "Names": ASCII letters and digits, with `-`, `_`, `.` inside.
bool is_valid_name(std::string_view name);

}  // namespace wheelmod::pep
