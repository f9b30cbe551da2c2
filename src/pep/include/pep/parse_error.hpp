// Error value returned by the pure parsers in wheelmod::pep.
#pragma once

#include <expected>
#include <string>

namespace wheelmod::pep {

/// Why text is not valid under the standard it was parsed as: `input` as given, `message` what is
/// wrong in words a user can act on ("epoch must be a number, got 'x'").
struct ParseError {
  std::string input;
  std::string message;
  /// "invalid version '1.0.x': <message>" — `what` names the kind of text.
  [[nodiscard]] std::string describe(std::string_view what) const {
    return "invalid " + std::string(what) + " '" + input + "': " + message;
  }
};

template <class T>
using Parsed = std::expected<T, ParseError>;

}  // namespace wheelmod::pep
