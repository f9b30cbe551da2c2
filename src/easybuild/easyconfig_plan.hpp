// From resolved wheels (one resolution per architecture) to the Stage-1
// easyconfigs a maintainer opens a pull request with: PyTorch-<v>-...-whl
// (torch and the wheels it needs), PyTorch-bundle-<v>-...-whl (the other
// requested projects), and a CUDA-wheel-bundle where the generation has
// none whose dummy packages match the wheels' pins; plus what the
// maintainer must add by hand. Pure: the caller resolves and hashes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "easybuild/config.hpp"
#include "easybuild/easyconfig_writer.hpp"

namespace wheelmod::easybuild {

enum class RequirementSource { wheel, module, bundled_wheel, missing };

/// One Requires-Dist of a wheel and what provides it on EasyBuild.
struct ResolvedRequirement {
  std::string project;      // PEP 503 name: nvidia-cudnn-cu12
  std::string requirement;  // nvidia-cudnn-cu12==9.5.1.17; platform_system == "Linux" ...
  RequirementSource source = RequirementSource::missing;
  std::string provider;  // module name or wheel file name; "" when missing
  std::optional<std::string> provided_version;
  bool incompatible = false;  // the provider's version does not satisfy it
  std::string note;
};

/// One chosen wheel on one architecture.
struct ResolvedWheel {
  std::string project;  // PEP 503 name
  std::string version;  // 2.6.0+cu126
  std::string filename;
  std::string url;
  std::string sha256;  // from the index or computed; never empty here
  bool requested = true;
  std::vector<ResolvedRequirement> requirements;
};

struct ArchResolution {
  std::string arch;  // x86_64
  std::vector<ResolvedWheel> wheels;
};

enum class BuildKind { cpu, cuda, rocm };

/// What becomes of Requires-Dist lines that modules satisfy without being
/// Python packages (nvidia-cudnn-cu12 -> the cuDNN module).
enum class MetadataStrategy {
  keep,   // depend on a CUDA-wheel-bundle of dummy packages
  strip,  // delete the lines from the installed METADATA (postinstallcmds)
};

enum class RelinkStep { none, relink };

struct StackRequest {
  std::vector<std::string> requested;  // PEP 503 names in spec order; must hold torch
  const Generation* generation = nullptr;
  std::string toolchain;  // the --toolchain key: foss-2024a
  BuildKind build = BuildKind::cpu;
  std::string cuda_version;            // the CUDA module's: 12.6.0 (cuda builds)
  std::string variant;                 // cu126, rocm6.2.4, cpu
  std::vector<ArchResolution> arches;  // sorted by arch
  MetadataStrategy metadata = MetadataStrategy::keep;
  RelinkStep relink = RelinkStep::none;
  std::string wheelmod_version;  // for the build dependency of --with-relink
  std::optional<std::string>
      versionsuffix;                 // default: -whl / -CUDA-%(cudaver)s-whl / -ROCm-<v>-whl
  std::vector<std::string> command;  // the command line, for the header comment
};

/// Something the maintainer must add: a module, a package version.
struct ToAdd {
  std::string subject;  // nvidia-cudnn-cu12==9.5.1.17
  std::string reason;   // no module of 2023a provides libcudnn.so.9 ...
};

struct EasyconfigPlan {
  std::vector<Easyconfig> easyconfigs;  // PyTorch, PyTorch-bundle, generated dependencies
  std::vector<ToAdd> to_add;
};

/// Plans the easyconfigs. Throws UsageError (exit 2) when torch is not
/// requested or a dependency module's toolchain is not usable from the
/// requested toolchain.
EasyconfigPlan plan_easyconfigs(const StackRequest& request);

/// The import name EasyBuild checks an extension with, when it is not the
/// project name with '-' turned into '_' (EasyBuild's default): "False" for
/// NVIDIA library wheels (no package to import), "'triton'" for
/// pytorch-triton-rocm. nullopt: the default works.
std::optional<std::string> modulename_for(std::string_view project);

/// The public version: "2.6.0+cu126" -> "2.6.0" (PEP 440 local label dropped).
std::string public_version(std::string_view version);

}  // namespace wheelmod::easybuild
