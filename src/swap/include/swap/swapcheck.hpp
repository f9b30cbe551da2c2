// Stage 2: can a source-built PyTorch (candidate) replace the wheel one (current) under the
// packages installed on it? Per dependent: safe (Python only), compatible (every symbol it imports
// is defined after the swap — by the candidate's libraries or the rest of what it loads — same
// C++ ABI, pins and CUDA major met), breaks (with every reason), relink needed (absolute RPATH
// into the current prefix; --fix re-points), or broken now (it does not load even with the
// current torch: a symbol nothing defines, a library not found).
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace wheelmod::elf {
class Loader;
}

namespace wheelmod::swap {

/// What a torch installation offers its dependents.
struct TorchInstall {
  std::filesystem::path prefix;     // as given, absolute
  std::filesystem::path package;    // .../site-packages/torch (or dist-packages/torch)
  std::filesystem::path torch_lib;  // package/lib (may be symlinks, or absent)
  std::string version;              // 2.7.1+cu126; "" when no metadata nor version.py says
  std::string version_source;       // torch-2.7.1.dist-info, torch-….egg-info, torch/version.py
  /// Symbols its libraries export at a default version -> GNU version ("" when unversioned).
  /// Hashed: dependents' imports make hundreds of thousands of lookups per scan.
  std::unordered_map<std::string, std::string> exports;
  std::set<std::string> libraries;  // sonames (or file names) in torch/lib
  std::set<std::string> needed;     // what those libraries need (libcudnn.so.9, ...)
  std::optional<bool> cxx11_abi;    // from the mangling of its std::string functions
  std::optional<int> cuda_major;    // from +cuXY, or libcudart.so.N
  bool rocm = false;
  /// ROCm builds: the HIP runtime's major (6 for ROCm 6.x: libamdhip64.so.6), from +rocmX.Y or
  /// a libamdhip64.so.N it or its libraries need or carry.
  std::optional<int> rocm_major;
  std::set<std::filesystem::path> library_files;     // torch's own, real paths
  std::set<std::filesystem::path> dependency_files;  // what they load besides, real paths
};

/// The torch package of an installation: `given` itself (a torch directory), given/torch (a
/// site-packages), or PREFIX/{lib,lib64,local/lib}/python*/{site,dist}-packages/torch.
std::optional<std::filesystem::path> find_torch_package(const std::filesystem::path& given);

/// Reads the installation at `given` (see find_torch_package): version from torch's dist-info,
/// egg-info, else torch/version.py; libraries as `loader` resolves torch/_C*.so and torch/lib.
/// UsageError (exit 2, naming the directory) when there is no torch package or its libraries
/// export nothing.
TorchInstall read_torch_install(const std::filesystem::path& given, elf::Loader& loader);
TorchInstall read_torch_install(const std::filesystem::path& given);  // with this host's loader

/// unknown: it pins torch and the candidate's version cannot be determined (no metadata, no
/// version.py): neither compatible nor known to break.
enum class Verdict { safe, compatible, relink_needed, unknown, breaks, broken_now };
std::string_view verdict_text(Verdict verdict);

struct Reason {
  std::string kind;    // "C++ ABI mismatch", "API change", "pin", "CUDA major", "library not
                       // provided", "RPATH into the current prefix", "version unknown"; broken
                       // now: "undefined symbol", "library missing now"
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
  std::vector<Reason> reasons;    // why it breaks (or is broken now, unknown), what to relink
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
