// The mirror spec: which slice of a wheel index `wheelmod mirror` copies. A YAML file
// (docs/mirror.md, examples under index-mirrors/) read with the checked cursor, so every mistake
// is a UsageError (exit 2) naming `file:line:column` and the key.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "pep/specifier.hpp"
#include "pep/tags.hpp"

namespace wheelmod::mirror {

/// Which variant directories of the index (`cpu`, `cu126`, `rocm6.2.4`).
struct VariantSelection {
  std::vector<std::string> names;         // listed by name, in spec order
  std::optional<pep::SpecifierSet> cuda;  // `cuda: ">=12.4"`: every cuXY variant in range
  std::optional<pep::SpecifierSet> rocm;  // `rocm: ">=6.2"`: every rocmX.Y[.Z] variant in range
};

struct PackageSelection {
  std::string name;             // PEP 503 normalised: torch, torchvision
  pep::SpecifierSet specifier;  // ">=2.6,<2.8"; empty for "*"
};

struct MirrorSpec {
  std::filesystem::path file;  // where it was read from (for messages)
  /// Root of the source index, variant directories below it (.../whl -> .../whl/cu126/torch/).
  std::string index = "https://download.pytorch.org/whl";
  bool index_given = false;  // the spec has an `index` key (else the configured index is used)
  VariantSelection variants;
  std::vector<PackageSelection> packages;  // at least one
  std::vector<std::string> python;         // "3.11", "3.12", "3.13t"; at least one
  std::vector<std::string> arches;         // x86_64, aarch64 (uname -m); at least one
  /// The site nodes' oldest glibc: wheels needing newer are skipped. Default 2.28: every x86_64
  /// and aarch64 torch wheel since 2.6 is manylinux_2_28 (pytorch RELEASE.md), so 2.17
  /// (manylinux2014) would select none of today's; 2.28 is also RHEL 8's, as easyconfig assumes.
  pep::GlibcVersion glibc{2, 28};
  /// Also mirror what selected wheels require (nvidia-*, triton), transitively, per Python/arch.
  bool follow_dependencies = true;
  /// Where to look for those: a PEP 503 root of project pages (default: the variant's own
  /// directory, then `index` itself, as download.pytorch.org serves them).
  std::optional<std::string> dependency_index;
  std::optional<std::uint64_t> size_limit;  // bytes; a bigger plan (to add + kept) is refused
};

/// Reads and checks a spec. Unknown keys, wrong types, bad specifiers, unknown arches, empty
/// lists and bad sizes (see parse_size) are UsageErrors at their `file:line:column`.
MirrorSpec load_spec(const std::filesystem::path& file);

/// "200 GiB" -> 214748364800; units B, kB/KB, MB, GB, TB (powers of 1000),
/// KiB, MiB, GiB, TiB (powers of 1024); a plain integer is bytes.
std::optional<std::uint64_t> parse_size(std::string_view text);

}  // namespace wheelmod::mirror
