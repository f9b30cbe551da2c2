// The accelerator a build targets (--accelerator) and the index variant
// directories that serve it (download.pytorch.org/whl/<variant>/).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pep/parse_error.hpp"

namespace wheelmod::index_client {

enum class AcceleratorKind { cpu, cuda, rocm };

std::string_view kind_text(AcceleratorKind kind);

struct Accelerator {
  AcceleratorKind kind = AcceleratorKind::cpu;
  /// "12.6", "12.6.0", "6.2.4"; nullopt = the toolchain generation's own.
  std::optional<std::string> version;
  /// A variant directory the user named (`cu126`, `rocm6.2.4`): only that one is used.
  std::optional<std::string> variant;

  /// Accepts `cpu`, `cuda`, `cuda:12.6`, `cu126`, `rocm`, `rocm:6.2`, `rocm6.2.4`, any case.
  static pep::Parsed<Accelerator> parse(std::string_view text);

  /// "cpu", "cuda 12.6.0", "cu126", "rocm 6.2.4".
  [[nodiscard]] std::string str() const;
};

/// "12.6.0" -> "cu126"; "11.8" -> "cu118". nullopt for a malformed version.
std::optional<std::string> cuda_variant_name(std::string_view cuda_version);
/// "cu126" -> "12.6"; nullopt if not a CUDA variant name.
std::optional<std::string> cuda_version_of_variant(std::string_view variant);

/// The variant directories to try for `kind` at `version`, best first: the exact one, then older
/// ones of the same major, as PyTorch's CUDA wheels run on any newer CUDA of that major (CUDA
/// Compatibility guide §"Minor Version Compatibility"). cpu -> cpu; cuda 12.6 -> cu126, ...,
/// cu120; rocm 6.2.4 -> rocm6.2.4, rocm6.2, rocm6.1.x..., rocm6.0 (known names only).
std::vector<std::string> variant_candidates(AcceleratorKind kind, std::string_view version);

}  // namespace wheelmod::index_client
