// What `wheelmod resolve` found: the chosen wheels, why, their dependencies and the EasyBuild
// modules that provide them. The JSON form is a stable, documented contract
// (docs/resolve-report.md) that `fetch --from-report` and scripts read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace wheelmod::resolve {

/// The machine resolved for.
struct TargetSummary {
  std::optional<std::string> toolchain;   // foss-2024a
  std::optional<std::string> generation;  // 2024a
  std::string python;                     // 3.12
  std::string python_source;  // "toolchain foss-2024a (Python/3.12.3-GCCcore-13.3.0)" / "--python"
  std::string arch;
  std::string glibc;
  std::string accelerator;                   // cpu / cuda 12.6.0 / rocm 6.2.4
  std::string accelerator_source;            // "toolchain (CUDA/12.6.0)" / "--accelerator"
  std::optional<std::string> nvidia_driver;  // "550.54.15 (--driver)"; nullopt: not checked
};

struct VariantChoice {
  std::string variant;  // cu126
  std::string reason;   // "exact match for CUDA 12.6.0" / "closest lower ..."
  bool exact = true;
  std::vector<std::string> tried;             // variants tried before it, with why they failed
  std::optional<std::string> minimum_driver;  // CUDA variants: the oldest NVIDIA driver (580)
};

enum class DependencyResolution {
  chosen_wheel,   // another wheel of this resolution (torchvision -> torch)
  eb_module,      // an EasyBuild module of the toolchain generation
  bundled_wheel,  // an extra wheel from the index, installed alongside
  missing,        // nothing provides it
};
std::string_view resolution_text(DependencyResolution resolution);

enum class Compatibility { exact, compatible, incompatible, unknown };
std::string_view compatibility_text(Compatibility compatibility);

struct Dependency {
  std::string requirement;  // as in METADATA, normalised: `nvidia-cudnn-cu12==9.5.1.17`
  std::string name;         // PEP 503 name
  DependencyResolution resolution = DependencyResolution::missing;
  std::string provider;  // module name, wheel file name, or "" when missing
  std::optional<std::string> provided_version;
  Compatibility compatibility = Compatibility::unknown;
  std::string note;  // why: "same major (9)", "wants ==1.13.1, module has 1.13.3"
  /// For a CUDA library's module: "installed here" when the site's modules were read and it is
  /// there (the table's or one the site adds), "table" when only the table names it.
  std::string module_source;
};

struct ChosenWheel {
  std::string name;     // PEP 503 name
  std::string version;  // 2.6.0+cu126
  std::string filename;
  /// As the index gives it, user:password included, for downloading; every
  /// report, message and easyconfig prints it through mask_credentials.
  std::string url;
  std::optional<std::string> sha256;  // nullopt: the index gave none
  std::optional<std::uint64_t> size;
  std::string variant;
  std::string best_tag;        // the target's best tag this wheel carries
  std::size_t tag_rank = 0;    // its 1-based position in the target's list
  std::size_t tags_total = 0;  // length of that list
  bool requested = true;       // false: a bundled dependency
  std::string why;  // "highest version matching torch==2.6.0; 2 other candidates rejected"
  std::optional<std::string>
      metadata_source;  // "PEP 658 .metadata file", ...; nullopt with --no-deps
  std::vector<Dependency> dependencies;
};

/// A ROCm wheel's bundled library and where an install here takes it from (rocm_libraries.hpp).
struct RocmLibrarySummary {
  std::string file;    // libamdhip64.so
  std::string soname;  // libamdhip64.so.6
  std::string module;  // "" : stays bundled
  std::string note;    // why
};

/// ROCm variants: which bundled libraries the generation's ROCm modules provide.
struct RocmSummary {
  std::string wheel_rocm;  // 6.4
  std::string stack_rocm;  // 6.4.1; "" : the generation has none
  bool relinked = false;   // some library comes from a module
  bool site_read = false;  // the site's modules were looked at (else the table's only)
  std::string summary;
  std::vector<RocmLibrarySummary> libraries;
};

struct ResolveReport {
  std::string index;  // root URL (credentials masked)
  std::vector<std::string> specs;
  bool no_deps = false;
  TargetSummary target;
  VariantChoice variant;
  std::vector<ChosenWheel> wheels;   // requested first, then bundled
  std::vector<std::string> modules;  // every EB module to load, sorted, unique
  std::vector<Dependency> missing;   // dependencies nothing provides
  std::vector<std::string> warnings;
  std::vector<std::string> notes;   // worth knowing, not wrong: variant wheels passed over
  std::optional<RocmSummary> rocm;  // ROCm variants of a generation in the tables
};

nlohmann::json to_json(const ResolveReport& report);

/// Reads a report written by to_json (schema_version 1), for `fetch --from-report`. Requires
/// `schema_version`, `index`, `specs` and `wheels[]` with `name`, `version`, `filename`, `url`,
/// `sha256` and `size` (null allowed where to_json writes null); other fields are read when
/// present. Throws UsageError (exit 2) naming `source` and the JSON path of the first bad field
/// ("wheels[1].sha256: expected 64 hex digits").
ResolveReport report_from_json(const nlohmann::json& document, std::string_view source);

}  // namespace wheelmod::resolve
