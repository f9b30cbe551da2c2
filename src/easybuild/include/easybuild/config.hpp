// The site tables: toolchain generations (config/toolchains.yaml) and which EasyBuild module
// provides which pip package or CUDA library (config/eb-dependencies.yaml); schema in
// config/README.md. A site directory given with --config holds files of the same names, merged
// over the shipped ones (per generation, then per field; lists replace; null removes).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wheelmod::easybuild {

struct Toolchain {
  std::string name;      // foss
  std::string version;   // 2024a
  std::string compiler;  // GCC/13.3.0: for HierarchicalMNS; "" when the table does not say
  std::string mpi;       // OpenMPI/5.0.3; "" for a compiler-only toolchain (or not said)
  friend bool operator==(const Toolchain&, const Toolchain&) = default;
};

struct ModuleVersion {
  std::string version;  // 12.6.0
  std::string module;   // CUDA/12.6.0
  friend bool operator==(const ModuleVersion&, const ModuleVersion&) = default;
};

/// A module that provides a pip package (Python-bundle-PyPI provides jinja2).
struct PythonProvider {
  std::string module;
  std::string package_version;      // the pip package's version inside it
  std::optional<std::string> cuda;  // for CUDA-specific modules (Triton -CUDA-12.6.0)
  friend bool operator==(const PythonProvider&, const PythonProvider&) = default;
};

/// A module that provides a CUDA library (cuDNN provides libcudnn.so.9).
struct LibraryProvider {
  std::string module;   // cuDNN/9.5.0.50-CUDA-12.6.0
  std::string name;     // cuDNN
  std::string version;  // 9.5.0.50
  std::string libdir;   // lib, lib64, extras/CUPTI/lib64 (relative to the module's root)
  std::optional<std::string> cuda;
  /// Found installed at the site (installed_providers), not named by the table.
  bool installed_here = false;
  /// ROCm providers: the ROCm version the module is built for (6.4.1); nullopt for the system
  /// libraries a ROCm wheel also bundles (GCCcore's libgomp, numactl's libnuma).
  std::optional<std::string> rocm = std::nullopt;
  /// ROCm providers: the module's own copies of the data the wheel bundles beside the library,
  /// relative to the module root (rocBLAS: lib/rocblas/library).
  std::vector<std::string> data = {};
  friend bool operator==(const LibraryProvider&, const LibraryProvider&) = default;
};

/// A pip package of a CUDA library (nvidia-cudnn-cu12) and where EB has it.
struct CudaLibrary {
  std::string wheel_libdir;  // nvidia/cudnn/lib
  std::vector<std::string> wheel_libdir_aliases;
  std::vector<std::string> libraries;        // SONAMEs
  std::vector<LibraryProvider> provided_by;  // best first
  friend bool operator==(const CudaLibrary&, const CudaLibrary&) = default;
};

/// A library a ROCm torch wheel bundles in torch/lib under its link name (libamdhip64.so; pytorch
/// .ci/manywheel/build_common.sh renames each copy so), and the modules of the generation's ROCm
/// stack that provide it (config/README.md "rocm").
struct RocmLibrary {
  std::string soname;                   // libamdhip64.so.6: the table's; install reads the files'
  std::vector<std::string> wheel_data;  // its data in the wheel, relative to site-packages
  std::vector<LibraryProvider> provided_by;  // best first
  friend bool operator==(const RocmLibrary&, const RocmLibrary&) = default;
};

/// The generation's CUDA-wheel-bundle module: dummy `nvidia-*` dist-info (metadata only) so that
/// `pip check` passes while the libraries come from the CUDA / cuDNN / NCCL modules. Its versions
/// are one torch release's pins, not the module versions (config/README.md).
struct CudaWheelBundle {
  std::string module;                           // CUDA-wheel-bundle/12.6.0-gfbf-2024a-CUDA-12.6.0
  std::string cuda;                             // 12.6.0
  std::map<std::string, std::string> packages;  // pip name -> dummy version
  friend bool operator==(const CudaWheelBundle&, const CudaWheelBundle&) = default;
};

/// What becomes of Requires-Dist lines that modules satisfy without being Python packages
/// (nvidia-cudnn-cu12 -> cuDNN), which would fail the `pip check` of EasyBuild's sanity check.
enum class MetadataPolicy {
  strip,  // drop them from the installed METADATA (the originals go to wheelmod.json)
  keep,   // keep them, met by a CUDA-wheel-bundle module of dummy packages
};

struct Generation {
  std::string name;                             // 2024a
  std::string gcccore;                          // 13.3.0
  std::map<std::string, Toolchain> toolchains;  // accepted --toolchain value -> toolchain
  ModuleVersion python;
  std::optional<ModuleVersion> cuda;
  std::vector<std::string> cuda_other;
  std::optional<ModuleVersion> rocm;
  std::map<std::string, Toolchain>
      rocm_toolchains;  // the ROCm modules' toolchains (no --toolchain)
  std::map<std::string, std::vector<PythonProvider>> python_packages;  // PEP 503 name -> providers
  std::map<std::string, CudaLibrary> cuda_libraries;                   // pip name -> library
  std::map<std::string, RocmLibrary> rocm_libraries;  // torch/lib file name -> library
  std::optional<CudaWheelBundle> cuda_wheel_bundle;
  friend bool operator==(const Generation&, const Generation&) = default;
};

/// The CUDA versions the generation has modules of, its main one first.
std::vector<std::string> cuda_versions(const Generation& generation);

/// The generation's CUDA module version for CUDA `wanted` ("12.6", "12.6.0"): the same
/// major.minor, and the same patch when `wanted` names one.
std::optional<std::string> cuda_module_version(const Generation& generation,
                                               std::string_view wanted);

/// The generation's CUDA module that runs wheels built for CUDA `wanted` ("13.0"): the same major,
/// not older (CUDA Compatibility guide, "Minor Version Compatibility"); the main CUDA first.
std::optional<std::string> cuda_module_serving(const Generation& generation,
                                               std::string_view wanted);

class SiteConfig {
 public:
  /// Loads `shipped_dir`/{toolchains,eb-dependencies}.yaml, then merges `site_dir`'s files of the
  /// same names. Throws UsageError (exit 2) naming file:line:column and the key for bad YAML,
  /// unknown keys, unquoted versions or a malformed module name.
  static SiteConfig load(const std::filesystem::path& shipped_dir,
                         const std::optional<std::filesystem::path>& site_dir = std::nullopt);
  /// The same tables for a command about one toolchain: every generation's toolchains, but the
  /// shipped eb-dependencies.yaml only of the generation that has `toolchain` (the other
  /// generations' blocks are blanked before yaml-cpp reads the text, keeping line numbers),
  /// since parsing all of it was most of a small command's time. The other generations then lack
  /// their packages and libraries. An unknown toolchain loads everything (for the messages).
  /// Both, without a site directory, take the tables parsed from config/ at build time when
  /// `shipped_dir`'s two files hold the bytes they were parsed from (reading and comparing them
  /// takes microseconds, yaml-cpp milliseconds): the same tables as from the YAML.
  static SiteConfig load_for_toolchain(const std::filesystem::path& shipped_dir,
                                       const std::optional<std::filesystem::path>& site_dir,
                                       const std::string& toolchain);
  /// load_for_toolchain, always from the YAML (the build-time tables' reference; the tests).
  static SiteConfig load_from_yaml(const std::filesystem::path& shipped_dir,
                                   const std::optional<std::filesystem::path>& site_dir,
                                   const std::string& toolchain);

  [[nodiscard]] const std::map<std::string, Generation>& generations() const {
    return m_generations;
  }

  /// The generation of a --toolchain value (`foss-2024a`, `GCC-13.3.0`; case-sensitive).
  [[nodiscard]] const Generation* find_generation(std::string_view toolchain) const;

  /// Appends `provider` to the providers of CUDA library `package` in the generation `toolchain`
  /// belongs to (a module the site has, found by installed_providers).
  void add_library_provider(std::string_view toolchain, const std::string& package,
                            LibraryProvider provider);

  /// Every accepted --toolchain value, for error messages.
  [[nodiscard]] std::vector<std::string> toolchain_names() const;

  /// The shipped config directory: shipped_data_dir("config") (core/files.hpp).
  static std::filesystem::path default_dir();

 private:
  std::map<std::string, Generation> m_generations;
};

}  // namespace wheelmod::easybuild
