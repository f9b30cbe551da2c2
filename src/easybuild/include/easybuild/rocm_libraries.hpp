// Which libraries a ROCm torch wheel bundles are taken from the site's EasyBuild ROCm modules
// instead (config/eb-dependencies.yaml `rocm`, config/README.md). The download.pytorch.org
// ROCm wheels carry the ROCm runtime and libraries in torch/lib under their link names
// (libamdhip64.so; pytorch .ci/manywheel/build_common.sh), found through RPATH $ORIGIN. A site
// that built the ROCm stack wants one copy of each in a process (its RCCL with its network
// plugin, its rocBLAS, its HIP runtime), as it wants one libcudart.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "easybuild/config.hpp"
#include "easybuild/library_map.hpp"

namespace wheelmod::easybuild {

/// --rocm-libraries: where the bundled ROCm libraries come from.
enum class RocmLibraryMode {
  automatic,  // from the modules the site has, where the stack's ROCm is the wheel's major.minor
  modules,    // the same, and an error where any library the table's modules provide cannot be
  bundled,    // the wheel as published
};
std::string_view rocm_mode_text(RocmLibraryMode mode);
std::optional<RocmLibraryMode> parse_rocm_mode(std::string_view text);

/// Where the relinked files find a library taken from a module: the module's directory that
/// holds the file under the name torch's libraries need (its link name, lib/libamdhip64.so).
struct RocmLink {
  std::string module;  // HIP/6.4.1-rocm-compilers-19.0.0-ROCm-6.4.1
  std::string directory;
};

/// One library of the table, and where it will come from.
struct RocmLibraryChoice {
  std::string file;    // libamdhip64.so: its name in torch/lib
  std::string soname;  // libamdhip64.so.6: the table's (install compares the files' own)
  std::string module;  // the provider it is taken from; "" when it stays bundled
  std::optional<std::string> module_rocm;  // that module's ROCm version (6.4.1), if it has one
  std::filesystem::path directory;         // the module's directory that holds `file`
  std::vector<std::string> wheel_data;     // the wheel's data of it, dropped with it
  std::string note;                        // why it stays bundled, or what the module holds
  [[nodiscard]] bool from_module() const { return !module.empty(); }
};

struct RocmPlan {
  RocmLibraryMode mode = RocmLibraryMode::automatic;
  std::string wheel_rocm;  // 6.4: the variant's
  std::string stack_rocm;  // 6.4.1: the generation's ROCm stack; "" when it has none
  /// Whether any library is taken from a module.
  bool relinked = false;
  /// One line: why nothing is relinked, or why the mix of module and bundled libraries is safe.
  std::string summary;
  std::vector<RocmLibraryChoice> libraries;  // in the table's order (by file name)

  /// The modules libraries are taken from, each once, in the table's order.
  [[nodiscard]] std::vector<std::string> modules() const;
  /// Each library taken from a module, under every name a file may need it by (the link name
  /// torch's libraries carry, and the SONAME a torchvision built against ROCm carries).
  [[nodiscard]] std::map<std::string, RocmLink> links() const;
};

/// The plan for a wheel of ROCm `wheel_rocm` ("6.4", from the variant rocm6.4) in `generation`:
/// each library of the generation's table whose provider is installed here (the locator), holds
/// the library under its link name (ModuleLocator::directory_with) and the provider's data
/// directories, and is built for the wheel's ROCm major.minor, comes from that module. Nothing
/// does for `bundled`, for a generation without a ROCm stack, or for a stack of another ROCm
/// major.minor than the wheel's (ROCm libraries of two releases are not mixed in one process).
/// `modules` throws CheckFailedError (exit 6) where the automatic plan would keep a library the
/// table gives a provider for, naming each and why.
/// Without a locator (`resolve` with no site to read) the site is not looked at: each library
/// gets the table's first provider built for the wheel's ROCm, noted as not looked for.
RocmPlan plan_rocm_libraries(const Generation& generation, std::string_view wheel_rocm,
                             const ModuleLocator* locator, RocmLibraryMode mode);

/// Whether `module` comes with the toolchain itself (GCCcore/<the generation's GCCcore>, which
/// provides libgomp): it is in every toolchain module's load chain and no dependency of its own.
bool is_toolchain_module(const Generation& generation, std::string_view module);

/// The ROCm major.minor of a variant or accelerator text: "rocm6.4" -> "6.4", "rocm6.2.4" ->
/// "6.2", "6.4.1" -> "6.4"; nullopt when it names none.
std::optional<std::string> rocm_major_minor(std::string_view text);

}  // namespace wheelmod::easybuild
