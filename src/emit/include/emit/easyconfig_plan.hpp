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
#include "easybuild/rocm_libraries.hpp"
#include "emit/easyconfig_writer.hpp"
#include "index_client/accelerator.hpp"
#include "resolve/report.hpp"
#include "wheel/import_names.hpp"

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
  /// What each wheel of the reports installs for import, by file name: its extension's
  /// `modulename`. Read from the wheel (wheel::extension_import), never guessed from its name.
  std::map<std::string, wheel::ExtensionImport> imports;
  /// keep: depend on a CUDA-wheel-bundle of dummy packages; strip: delete
  /// the lines from the installed METADATA in postinstallcmds.
  easybuild::MetadataPolicy metadata = easybuild::MetadataPolicy::strip;
  RelinkStep relink = RelinkStep::none;
  /// --rocm-libraries (ROCm builds): auto and modules take the bundled ROCm libraries the
  /// generation's ROCm modules provide from those modules, which needs --with-relink (its relink
  /// removes the wheel's copies) and a ROCm stack of the wheel's major.minor.
  easybuild::RocmLibraryMode rocm_libraries = easybuild::RocmLibraryMode::automatic;
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

/// A requirement of an extension that the installation an easyconfig makes would not meet on an
/// architecture it covers: nothing provides it, or the module that does has another version.
/// EasyBuild's sanity step (`pip check`, PythonPackage's sanity_pip_check, on by default in
/// EasyBuild 5) would fail; for a CUDA library, also the import of torch.
struct UnmetRequirement {
  std::string easyconfig;   // PyTorch, PyTorch-bundle
  std::string arch;         // x86_64
  std::string requirement;  // nvidia-nvshmem-cu13==3.4.5 (without its marker)
  std::string needed_by;    // the wheel's file name
  std::string why;          // "no module of 2026.1 provides libnvshmem_host.so.3"
};

/// Where a ROCm build's ROCm libraries come from (docs/easyconfig.md "ROCm").
struct RocmLibrariesChoice {
  bool from_modules = false;
  std::string wheel_rocm;  // 6.4: the variant's major.minor ("" when not known yet)
  std::string stack;       // 6.4.1: the generation's ROCm stack ("" when it has none)
  /// from_modules: each library's first provider built for the wheel's ROCm, each once, in the
  /// table's order, without the toolchain's own GCCcore (easybuild::is_toolchain_module).
  std::vector<std::string> modules;
  /// from_modules: the torch/lib files no module of the table provides; they stay bundled.
  std::vector<std::string> bundled;
  std::string why;  // !from_modules: why the wheel keeps its own
};

/// nullopt for a CPU or CUDA build. `request.variant` may be a variant not resolved yet ("rocm"):
/// then the stack is not compared. Throws UsageError (exit 2) for --rocm-libraries modules where
/// the libraries cannot come from modules: not a ROCm build, no --with-relink (pip installs the
/// wheel as published and nothing would remove its copies), no ROCm stack in the generation, a
/// stack of another ROCm major.minor than the wheel's, or no library the table has a module for.
std::optional<RocmLibrariesChoice> choose_rocm_libraries(const StackRequest& request);

struct EasyconfigPlan {
  std::vector<Easyconfig> easyconfigs;  // PyTorch, PyTorch-bundle, generated dependencies
  std::vector<ToAdd> to_add;
  std::vector<UnmetRequirement> unmet;  // empty: every requirement met on every architecture
};

/// Throws UsageError (exit 2) when torch is not requested or a dependency module's toolchain is
/// not usable from the requested toolchain.
EasyconfigPlan plan_easyconfigs(const StackRequest& request);

/// An extension's `modulename` as a Python expression: nullopt where EasyBuild's default (the
/// project's name) is what the wheel installs, 'cuda.bindings' where another name is, False where
/// the wheel has no Python module (EasyBuild then skips the import).
std::optional<std::string> modulename_expression(const wheel::ExtensionImport& imports);

/// The public version: "2.6.0+cu126" -> "2.6.0" (PEP 440 local label dropped).
std::string public_version(std::string_view version);

}  // namespace wheelmod::emit
