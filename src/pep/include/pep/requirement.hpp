// PEP 508 dependency specifications: `name[extra1,extra2] (>=1.0) ; marker` or `name @ url ;
// marker`. Reference: python3-packaging 23.0 (packaging/requirements.py, packaging/_parser.py).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pep/marker.hpp"
#include "pep/parse_error.hpp"
#include "pep/specifier.hpp"

namespace wheelmod::pep {

struct Requirement {
  std::string name;                 // as written (`Typing_Extensions`)
  std::vector<std::string> extras;  // as written, sorted, no duplicates
  SpecifierSet specifier;
  std::optional<std::string> url;  // `name @ url`
  std::optional<Marker> marker;

  static Parsed<Requirement> parse(std::string_view text);

  /// PEP 503 normalised name (`typing-extensions`).
  [[nodiscard]] std::string canonical_name() const;

  /// Whether it applies to `env` when installing with `extras` ({} for none): no marker, or the
  /// marker is true for "" or for one of the extras.
  [[nodiscard]] bool applies_to(const MarkerEnvironment& env,
                                const std::vector<std::string>& extras = {}) const;

  /// Normalised text as packaging's str(Requirement).
  [[nodiscard]] std::string str() const;
};

}  // namespace wheelmod::pep
