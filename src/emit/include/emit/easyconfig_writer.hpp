// Writing easyconfig files: Python literals (strings, dependency tuples, lists wrapped at
// EasyBuild's 120 columns), the model of one Stage-1 easyconfig (a PythonBundle of wheels), and
// its rendering through a mustache template. Pure: no resolution, no I/O but the template file.
#pragma once

#include <cstddef>
#include <expected>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "easybuild/config.hpp"
#include "emit/templates.hpp"

namespace wheelmod::emit {

/// `eb --check-contrib` runs pycodestyle with 120 columns (framework easyconfig/style.py).
inline constexpr std::size_t k_easyconfig_width = 120;

/// A Python string literal: single quotes, or double quotes when `text` holds a single quote and
/// no double quote; backslashes, the quote and control characters escaped.
std::string python_string(std::string_view text);

/// `text` as one list item at `indent` columns then `trailer`, split into adjacent literals (Python
/// joins them) after a space or '/' where a line would pass `width`, else where the width ends.
std::vector<std::string> wrap_string_item(std::string_view text, std::size_t indent,
                                          std::string_view trailer = ",",
                                          std::size_t width = k_easyconfig_width);

/// `text` as `# ` comment lines at `indent` columns, wrapped between words.
std::vector<std::string> wrap_comment(std::string_view text, std::size_t indent,
                                      std::size_t width = k_easyconfig_width);

/// A list parameter or option: `<indent><key>[item, item]<closing>` when it fits in `width`, else
/// one item per line (by wrap_string_item) between `<indent><key>[` and `<indent>]<closing>`.
std::vector<std::string> render_string_list(std::string_view key,
                                            const std::vector<std::string>& items,
                                            std::size_t indent, std::string_view closing,
                                            std::size_t width = k_easyconfig_width);

/// EasyBuildMNS's `<name>/<version>[-<toolchain>-<toolchain version>][<versionsuffix>]`.
struct ModuleParts {
  std::string name;                      // cuDNN
  std::string version;                   // 9.5.1.17
  std::string versionsuffix;             // -CUDA-12.6.0
  std::optional<std::string> toolchain;  // GCCcore-13.3.0; nullopt: SYSTEM
};

/// Splits `module`; a `-<key>` of `generation`'s `toolchains` or `rocm_toolchains` map marks the
/// toolchain (HIP/6.4.1-rocm-compilers-19.0.0-ROCm-6.4.1: rocm-compilers-19.0.0-ROCm-6.4.1). Error
/// text for a name without exactly one '/'.
std::expected<ModuleParts, std::string> parse_module_name(std::string_view module,
                                                          const easybuild::Generation& generation);

/// Whether a dependency built with toolchain `dependency` (GCCcore, GCC, gfbf, gompi, foss) can
/// be used from an easyconfig with toolchain `target`: the same one or one of its subtoolchains
/// (framework toolchains/foss.py, gompi.py, gfbf.py, gcc.py).
bool is_subtoolchain(std::string_view dependency, std::string_view target);

/// inherited: no toolchain in the tuple (the easyconfig's or a subtoolchain of it); system:
/// SYSTEM; named: the module's own toolchain as the tuple's 4th element, for a module built with a
/// toolchain that is neither the easyconfig's nor one of its subtoolchains (framework easyconfig.py
/// `_parse_dependency`: a two-element tuple is a toolchain `{'name': ..., 'version': ...}`; the
/// ROCm modules of 2025a are built with rocm-compilers, as r/rompi/rompi-2025a.eb names them).
enum class DependencyToolchain { inherited, system, named };

/// One entry of `dependencies` / `builddependencies` (framework easyconfig.py `_parse_dependency`).
struct DependencySpec {
  std::string name;
  std::string version;
  std::string versionsuffix;  // may hold %(cudaver)s
  DependencyToolchain toolchain = DependencyToolchain::inherited;
  /// `(name, version, versionsuffix)` of the easyconfig itself: a PyTorch-bundle depends on the
  /// PyTorch of the same version and suffix.
  bool own_version_and_suffix = false;
  /// named: the toolchain's name and version (rocm-compilers, 19.0.0-ROCm-6.4.1).
  std::string toolchain_name = {};
  std::string toolchain_version = {};

  friend bool operator==(const DependencySpec&, const DependencySpec&) = default;
};

/// The tuple: `('cuDNN', '9.5.1.17', '-CUDA-%(cudaver)s', SYSTEM)`, `('PyTorch', version,
/// versionsuffix)`, `('HIP', '6.4.1', '', ('rocm-compilers', '19.0.0-ROCm-6.4.1'))`. The toolchain
/// is left out unless SYSTEM or named: EasyBuild then searches the subtoolchains for the minimal
/// one with it (framework `robot_find_subtoolchain_for_dep`).
std::string dependency_tuple(const DependencySpec& dependency);

/// The dependency for `module`: inherited toolchain when the module's is `target` or one of its
/// subtoolchains, SYSTEM when it has none, named when it is one of the generation's ROCm toolchains
/// (`rocm_toolchains`: rocm-compilers, which no toolchain of `toolchains` has below it);
/// `-CUDA-<cuda_version>` written as `-CUDA-%(cudaver)s`. Error text when the module's toolchain
/// (one of `toolchains`) is not usable from `target`.
std::expected<DependencySpec, std::string> dependency_from_module(
    std::string_view module, const easybuild::Generation& generation,
    const easybuild::Toolchain& target, std::string_view cuda_version);

/// One wheel of an extension, for one architecture.
struct WheelFile {
  std::string filename;  // as installed: torch-2.6.0+cu126-...whl
  std::string url;       // as downloaded: .../cu126/torch-2.6.0%2Bcu126-...whl
  std::string sha256;
  /// On PyPI (files.pythonhosted.org): EasyBuild's PythonPackage default source_urls
  /// (PYPI_SOURCE, rewritten to the file's /packages/ URL by framework's derive_alt_pypi_url)
  /// finds it, as easybuild-easyconfigs' own bundles rely on.
  bool on_pypi = false;
};

/// One `exts_list` entry.
struct Extension {
  std::string name;                        // torch
  std::string version;                     // 2.6.0 (public version)
  std::map<std::string, WheelFile> files;  // arch -> wheel; empty for a dummy package
  std::optional<std::string> modulename;   // Python expression: False, 'PIL'
  std::vector<std::string> skipsteps;      // steps of its easyblock not to run ("test")
};

struct Easyconfig {
  std::string name;
  std::string version;
  std::string versionsuffix;  // may hold %(cudaver)s
  std::string homepage;
  std::string description;  // plain text; lines separated by '\n'
  easybuild::Toolchain toolchain;
  std::optional<std::string> cuda_version;  // expands %(cudaver)s in the file name
  std::vector<std::string> arches;          // the ARCH values it supports, sorted
  std::vector<std::string> header;          // comment lines (without '# ')
  std::vector<DependencySpec> builddependencies;
  std::vector<DependencySpec> dependencies;                              // on every arch
  std::map<std::string, std::vector<DependencySpec>> arch_dependencies;  // arch -> extra ones
  std::vector<std::string> dependency_notes;  // comments closing `dependencies`
  bool dummy_package = false;
  std::vector<Extension> extensions;  // in install order
  std::vector<std::string> postinstallcmds;
  std::vector<std::string> sanity_check_commands;
  std::string moduleclass;
};

/// `<name>-<version>-<tc>-<tcversion><versionsuffix>.eb` (SYSTEM: no toolchain part),
/// %(cudaver)s expanded (framework `det_full_ec_version`).
std::string easyconfig_file_name(const Easyconfig& easyconfig);

/// What the template gets: Python literals or lists of finished lines (docs/easyconfig.md).
nlohmann::json easyconfig_context(const Easyconfig& easyconfig);

inline constexpr std::string_view k_easyconfig_template = "easyconfig.eb.mustache";

/// Renders `easyconfig` with `templates`. Throws UsageError for a broken template.
std::string render_easyconfig(const Easyconfig& easyconfig, const TemplateSet& templates);

}  // namespace wheelmod::emit
