// Choosing the wheels: the variant directory for the accelerator, then for each requested project
// the highest version that satisfies its specifiers, fits the variant and the target's tags, and
// agrees with the pins between requested projects (torchvision 0.21.0 requires torch==2.6.0);
// then each wheel's dependencies mapped to EasyBuild modules or bundled wheels.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/reporter.hpp"
#include "easybuild/config.hpp"
#include "index_client/accelerator.hpp"
#include "net/fetcher.hpp"
#include "pep/requirement.hpp"
#include "pep/tags.hpp"
#include "resolve/report.hpp"

namespace wheelmod::resolve {

/// What becomes of a CUDA library (nvidia-cudnn-cu12 ...) that no module
/// of the generation provides, or whose modules the site lacks.
enum class MissingLibraries {
  report,  // listed as missing: the site must add the module (the default)
  bundle,  // the matching nvidia-* wheel from the index is bundled (--bundle-missing)
};

/// The NVIDIA driver the wheels must run under, and where that came from.
struct DriverVersion {
  std::string version;  // 550.54.15
  std::string source;   // "--driver", "/proc/driver/nvidia/version"
};

struct ResolveRequest {
  std::vector<pep::Requirement> specs;
  std::string index_root;                // URL of the index root (variants below it)
  std::optional<std::string> toolchain;  // as given
  const easybuild::Generation* generation = nullptr;
  index_client::Accelerator accelerator;
  std::string python;  // "3.12" (from the toolchain or --python)
  std::string python_source;
  pep::TagTarget tag_target;  // python, arch, glibc
  bool no_deps = false;
  MissingLibraries missing_libraries = MissingLibraries::report;
  /// A CUDA variant this driver cannot run (index_client::minimum_driver) is passed over like a
  /// wrong Python; nullopt: not checked.
  std::optional<DriverVersion> nvidia_driver;
  /// PEP 825 variant wheels of this label are taken; nullopt: variant wheels are skipped.
  std::optional<std::string> wheel_variant;
  /// Whether the site has a module ("cuDNN/9.5.1.17-CUDA-12.6.0"), asked for CUDA libraries only
  /// (the relink needs their directories); unset: every module of the generation's table exists.
  std::function<bool(const std::string& module)> module_installed;
  /// Where the site installed a module (its EBROOT), where it was read: the CUDA module's
  /// version.json then gives each component's own version (cuBLAS 13.1.0.3 of CUDA 13.0.2), and a
  /// library module's directory whether it has the SONAMEs a wheel needs. Unset: not known.
  std::function<std::optional<std::filesystem::path>(const std::string& module)> module_root;
};

/// Throws UnsatisfiableError (exit 3) when a requested project has no fitting wheel, listing the
/// nearest candidates and why each was rejected; IoError / IntegrityError from the index.
ResolveReport resolve(const ResolveRequest& request, net::Fetcher& fetcher, Reporter& reporter);

}  // namespace wheelmod::resolve
