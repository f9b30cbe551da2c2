// Core metadata (the wheel's `*.dist-info/METADATA`, an sdist's PKG-INFO):
// RFC 822 style headers with continuation lines, then an optional body.
// Spec: https://packaging.python.org/en/latest/specifications/core-metadata/
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pep/parse_error.hpp"
#include "pep/requirement.hpp"
#include "pep/specifier.hpp"
#include "pep/version.hpp"

namespace wheelmod::pep {

struct CoreMetadata {
  std::string metadata_version;  // "2.1"
  std::string name;              // as written
  Version version;
  std::optional<SpecifierSet> requires_python;
  std::vector<Requirement> requires_dist;
  std::vector<std::string> provides_extra;
  /// Every header in file order, continuation lines joined by one space, for unmodelled fields.
  std::vector<std::pair<std::string, std::string>> headers;

  /// Parses the header block (up to the first empty line). Name, Version and Metadata-Version are
  /// required; an unparsable Requires-Dist or Requires-Python is an error that names the line.
  static Parsed<CoreMetadata> parse(std::string_view text);

  /// All values of header `field` (case-insensitive), in order.
  [[nodiscard]] std::vector<std::string_view> values(std::string_view field) const;
};

}  // namespace wheelmod::pep
