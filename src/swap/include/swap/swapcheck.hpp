// Stage 2: can a source-built PyTorch (candidate) replace the wheel one (current) under the
// packages installed on it? Per dependent: safe (Python only), compatible (every symbol it takes
// from the current torch is in the candidate's, same C++ ABI, pins and CUDA major met), breaks
// (with every reason), or relink needed (absolute RPATH into the current prefix; --fix re-points).
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace wheelmod::swap {

/// What a torch installation offers its dependents.
struct TorchInstall {
  std::filesystem::path prefix;
  std::filesystem::path torch_lib;  // site-packages/torch/lib
  std::string version;              // 2.7.1+cu126 (torch's METADATA)
  /// Symbols its libraries export at a default version -> GNU version ("" when unversioned).
  /// Hashed: dependents' imports make hundreds of thousands of lookups per scan.
  std::unordered_map<std::string, std::string> exports;
  std::set<std::string> libraries;  // sonames (or file names) in torch/lib
  std::set<std::string> needed;     // what those libraries need (libcudnn.so.9, ...)
  std::optional<bool> cxx11_abi;    // from the mangling of its std::string functions
  std::optional<int> cuda_major;    // from +cuXY, or libcudart.so.N
  bool rocm = false;
};

/// Reads a prefix holding lib/pythonX.Y/site-packages/torch; UsageError when there is none.
TorchInstall read_torch_install(const std::filesystem::path& prefix);

enum class Verdict { safe, compatible, relink_needed, breaks };
std::string_view verdict_text(Verdict verdict);

struct Reason {
  std::string kind;    // "C++ ABI mismatch", "API change", "pin", "CUDA major", "library not
                       // provided", "RPATH into the current prefix"
  std::string file;    // the ELF file or dist-info it concerns, relative to the dependent's prefix
  std::string detail;  // what is wrong: the requirement, the library, the entry, how many symbols
  /// For the symbol kinds, one reason per file and kind names every symbol (demangled) in import
  /// order: an extension built against the other C++ ABI misses thousands.
  std::vector<std::string> symbols{};
};

/// The detail with the first `shown` symbols named, and how many more.
std::string describe(const Reason& reason, std::size_t shown);

struct DependentResult {
  std::filesystem::path prefix;
  std::vector<std::string> projects;  // "torchvision 0.22.1"
  Verdict verdict = Verdict::safe;
  bool stable_abi = false;  // imports only the stable C ABI (aoti_torch_*)
  std::size_t elf_files = 0;
  std::size_t torch_imports = 0;  // symbols it takes from the current torch
  std::vector<Reason> reasons;    // why it breaks, or what needs relinking
  bool fixed = false;             // --fix re-pointed its RPATH entries
};

struct SwapcheckReport {
  TorchInstall current;
  TorchInstall candidate;
  std::vector<DependentResult> dependents;
  [[nodiscard]] bool ok() const;  // every dependent safe or compatible (or fixed)
};

/// The install prefixes under each of `roots`, but not in `skip` (the current and candidate): a
/// root that is a prefix (lib/pythonX.Y/site-packages) itself, else every prefix up to two levels
/// below it (an EasyBuild `software/` tree: Name/version).
std::vector<std::filesystem::path> find_dependents(const std::vector<std::filesystem::path>& roots,
                                                   const std::set<std::filesystem::path>& skip);

enum class FixRpath { no, yes };

SwapcheckReport swapcheck(const std::filesystem::path& current,
                          const std::filesystem::path& candidate,
                          const std::vector<std::filesystem::path>& dependents, FixRpath fix);

}  // namespace wheelmod::swap
