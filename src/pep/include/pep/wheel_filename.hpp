// Wheel file names: PEP 427 "File name convention" with the PEP 491 build tag and PEP 425
// compressed tag sets. Reference: packaging.utils.parse_wheel_filename (python3-packaging 23.0).
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

  /// Parses `torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl`; a percent-encoded `+`
  /// (`%2B`, as in download.pytorch.org's hrefs) is accepted and decoded.
  static Parsed<WheelFilename> parse(std::string_view filename);
};

}  // namespace wheelmod::pep
