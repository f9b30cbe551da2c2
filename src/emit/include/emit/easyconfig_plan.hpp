// From resolved wheels (one resolution per architecture) to the Stage-1 easyconfigs of a pull
// request: PyTorch-<v>-...-whl (torch and the wheels it needs), PyTorch-bundle-<v>-...-whl (the
// other requested projects), a CUDA-wheel-bundle where the generation has none whose dummy
// packages match the wheels' pins, and what to add by hand. Pure: the caller resolves and hashes.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "easybuild/config.hpp"
#include "emit/easyconfig_writer.hpp"
#include "index_client/accelerator.hpp"
#include "resolve/report.hpp"

namespace wheelmod::emit {

enum class RelinkStep { none, relink };

struct StackRequest {
  std::vector<std::string> requested;  // PEP 503 names in spec order; must hold torch
  const easybuild::Generation* generation = nullptr;
  std::string toolchain;  // the --toolchain key: foss-2024a
  index_client::AcceleratorKind accelerator = index_client::AcceleratorKind::cpu;
  std::string cuda_version;  // the CUDA module's: 12.6.0 (cuda builds)
  std::string variant;       // cu126, rocm6.2.4, cpu
  /// Per architecture (x86_64 -> report), every wheel with its sha256 (the index's or computed).
  std::map<std::string, resolve::ResolveReport> reports;
  /// keep: depend on a CUDA-wheel-bundle of dummy packages; strip: delete
  /// the lines from the installed METADATA in postinstallcmds.
  easybuild::MetadataPolicy metadata = easybuild::MetadataPolicy::strip;
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

/// Throws UsageError (exit 2) when torch is not requested or a dependency module's toolchain is
/// not usable from the requested toolchain.
EasyconfigPlan plan_easyconfigs(const StackRequest& request);

/// The import name EasyBuild checks an extension with, when not its default (the project name,
/// '-' as '_'): "False" for NVIDIA library wheels (nothing to import), "'triton'" for
/// pytorch-triton-rocm. nullopt: the default works.
std::optional<std::string> modulename_for(std::string_view project);

/// The public version: "2.6.0+cu126" -> "2.6.0" (PEP 440 local label dropped).
std::string public_version(std::string_view version);

}  // namespace wheelmod::emit
