// Wheel file names: PEP 427 "File name convention" with the PEP 491 build tag and PEP 425
// compressed tag sets. Reference: packaging.utils.parse_wheel_filename (python3-packaging 23.0).
// Beyond packaging: the variant label of PEP 825 (Draft, "Variant label"), so a variant wheel is
// recognised as one instead of being misread or refused as a malformed name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pep/parse_error.hpp"
#include "pep/tags.hpp"
#include "pep/version.hpp"

namespace wheelmod::pep {

/// `1` or `1abc` between version and tags: number, then the rest.
struct BuildTag {
  std::uint64_t number = 0;
  std::string suffix;
  friend auto operator<=>(const BuildTag&, const BuildTag&) = default;
};

struct WheelFilename {
  std::string distribution;  // as written (`nvidia_cudnn_cu12`)
  std::string name;          // PEP 503 normalised (`nvidia-cudnn-cu12`)
  Version version;           // `2.6.0+cu126` (from `2.6.0+cu126` or `2.6.0%2Bcu126`)
  std::optional<BuildTag> build;
  std::vector<Tag> tags;  // the expanded tag set, in the order written
  /// PEP 825 `-{variant label}` after the platform tag (`cu128`, `null`); nullopt for an
  /// ordinary wheel.
  std::optional<std::string> variant_label;

  /// Parses `torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl`; a percent-encoded `+`
  /// (`%2B`, as in download.pytorch.org's hrefs) is accepted and decoded. Also
  /// `torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-cu128.whl` (PEP 825 variant label).
  static Parsed<WheelFilename> parse(std::string_view filename);
};

/// PEP 825 "Variant label": 1 to 16 of [0-9a-z_.].
bool is_variant_label(std::string_view text);

}  // namespace wheelmod::pep
