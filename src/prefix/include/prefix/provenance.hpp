// How wheelmod made an installation: PREFIX/easybuild/wheelmod-install.json, beside EasyBuild's
// logs. `wheelmod install` writes it; the module writer reads it for the modules to load, the
// Python, and the installed wheels.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "easybuild/config.hpp"

namespace wheelmod::prefix {

inline const std::filesystem::path k_provenance_file = "easybuild/wheelmod-install.json";

struct InstalledProject {
  std::string name;
  std::string version;
  std::string dist_info;  // relative to the prefix
};

/// A wheel the installation was made from, as the install's plan chose it.
struct SourceWheel {
  std::string filename;
  std::string sha256;  // the index's; "" where it gave none (or a --wheel file)
  std::string url;     // without credentials; "" for a --wheel file
};

/// A ROCm wheel's bundled library, and the module it was taken from ("" : kept bundled).
struct RocmLibraryRecord {
  std::string file;         // libamdhip64.so (torch/lib)
  std::string soname;       // libamdhip64.so.6
  std::string module;       // HIP/6.4.1-rocm-compilers-19.0.0-ROCm-6.4.1, or ""
  std::string module_rocm;  // the module's ROCm version, "" for a system library's module
};

/// How a ROCm installation's bundled libraries were placed (easybuild/rocm_libraries.hpp).
struct RocmProvenance {
  std::string wheel;    // 6.4: the wheel's ROCm major.minor
  std::string stack;    // 6.4.1: the generation's ROCm stack ("" : none)
  std::string mode;     // auto, modules, bundled
  std::string summary;  // why nothing, or why the mix is safe
  std::vector<RocmLibraryRecord> libraries;
};

/// The file's contents (schema_version 1). Empty strings are absent keys.
struct Provenance {
  std::string installer;             // wheelmod 0.1.0
  std::string toolchain;             // foss-2024a
  std::string generation;            // 2024a
  std::string python;                // 3.12
  std::string python_module;         // Python/3.12.3-GCCcore-13.3.0
  std::string accelerator;           // cpu, cuda 12.6.0
  std::vector<std::string> modules;  // made against: sorted, each once
  easybuild::MetadataPolicy metadata = easybuild::MetadataPolicy::strip;
  std::string toolchain_module;  // foss/2024a
  std::string cuda_module;       // the generation's CUDA module
  std::string index;             // where the wheels came from, credentials masked
  std::string software_path;  // where the modules it was relinked at live (EasyBuild's software/)
  std::string site_packages;  // lib/python3.12/site-packages
  std::vector<InstalledProject> installed;  // in install order
  std::vector<SourceWheel> wheels;          // what the plan chose to install, in its order
  /// Each CUDA library the installation takes from a module: SONAME -> that module. `check`
  /// fails when one of them loads from anywhere else (the host's own CUDA, say), as it would on a
  /// compute node without that place.
  std::map<std::string, std::string> module_libraries;
  /// ROCm installations: where each bundled library comes from; nullopt for other accelerators.
  std::optional<RocmProvenance> rocm;
};

/// Writes `provenance` into `prefix` (atomically). Throws IoError.
void write_provenance(const std::filesystem::path& prefix, const Provenance& provenance);

/// Throws UsageError (exit 2) when `prefix` has none (not an installation wheelmod made), or it is
/// no JSON object of schema 1 listing at least one installed wheel with its name, version and
/// dist-info.
Provenance read_provenance(const std::filesystem::path& prefix);

}  // namespace wheelmod::prefix
