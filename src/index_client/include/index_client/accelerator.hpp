// The accelerator a build targets (--accelerator) and the index variant
// directories that serve it (download.pytorch.org/whl/<variant>/).
#pragma once

#include <optional>
#include <set>
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

  /// Accepts `cpu`, `cuda`, `cuda:13` (a major: its newest variant the target allows),
  /// `cuda:12.6`, `cu126`, `rocm`, `rocm:6.2`, `rocm6.2.4`, any case. `cu13` (two digits) is
  /// refused: it would read as CUDA 1.3.
  static pep::Parsed<Accelerator> parse(std::string_view text);

  /// A CUDA version given as a major alone (`cuda:13`).
  [[nodiscard]] bool major_only() const {
    return version && version->find('.') == std::string::npos;
  }

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
/// cu120; rocm 6.2.4 -> rocm6.2.4, rocm6.2, rocm6.1.x..., rocm6.0. A ROCm version matches the
/// directories that extend it (rocm 6.2 -> rocm6.2.4, then rocm6.2): the index names some
/// directories by patch level. `listed`: the directories the index is known to have (from
/// IndexLayout::listed_variants); without it, names the index has been seen to use.
std::vector<std::string> variant_candidates(AcceleratorKind kind, std::string_view version,
                                            const std::set<std::string>* listed = nullptr);

/// What a directory name below the index root is. download.pytorch.org's generator accepts
/// `cu[0-9]+`, `rocm[0-9]+.[0-9]+...`, `cpu` and `xpu`, and names `cpu-cxx11-abi`, `cpu_pypi_pkg`,
/// `cu*_full` and `cu*_pypi_cudnn` legacy (pytorch/test-infra s3_management/manage_v2.py,
/// ACCEPTED_SUBDIR_PATTERNS / NOT_ACCEPTED_SUBDIR_PATTERNS).
enum class DirectoryKind { variant, legacy_variant, other };
DirectoryKind classify_directory(std::string_view name);

/// The oldest NVIDIA driver that runs a CUDA variant's wheels through minor version
/// compatibility: CUDA 13.x >= 580, 12.x >= 525.60.13, 11.x >= 450.80.02 (CUDA Toolkit release
/// notes, Table 3 "CUDA Toolkit and Minimum Required Driver Version for CUDA Minor Version
/// Compatibility"; uv's crates/uv-torch/src/backend.rs encodes the same). nullopt for other
/// variants and unknown majors.
std::optional<std::string> minimum_driver(std::string_view variant);

/// The driver version in the text of /proc/driver/nvidia/version ("NVRM version: NVIDIA UNIX
/// x86_64 Kernel Module  550.54.15  Tue Mar  5 ..."): the first dotted number after "Module".
std::optional<std::string> parse_nvidia_driver_version(std::string_view proc_text);

}  // namespace wheelmod::index_client
