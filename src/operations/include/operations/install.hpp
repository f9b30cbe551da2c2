// `wheelmod install`: resolve, fetch, unpack, relink, byte-compile and check wheels into an
// EasyBuild-style prefix, all or nothing; with its module file when asked. In two steps, as uv
// builds an install plan before it touches the environment (crates/uv-installer/src/plan.rs):
// plan_install decides everything (reading index pages and the site, nothing else) into one
// immutable InstallPlan, which `install --dry-run` prints and the provenance records;
// execute_install only carries it out.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/reporter.hpp"
#include "easybuild/config.hpp"
#include "easybuild/rocm_libraries.hpp"
#include "emit/module_writer.hpp"
#include "operations/module_file.hpp"
#include "operations/selection.hpp"
#include "operations/site.hpp"
#include "prefix/install.hpp"
#include "prefix/provenance.hpp"
#include "resolve/report.hpp"

namespace wheelmod::operations {

struct InstallOptions {
  Selection selection;              // SPEC..., or
  std::vector<std::string> wheels;  // wheel files, installed as they are
  DownloadSettings download;
  std::string prefix;                // "": EasyBuild's name for it under the site's software path
  std::string eb_installpath;        // "": EasyBuild's configuration (site.hpp), and loaded EBROOT*
  std::vector<std::string> modules;  // preferred where several provide a library
  std::string python_exe;            // "": $EBROOTPYTHON/bin/python
  std::string patchelf = "patchelf";
  easybuild::MetadataPolicy metadata = easybuild::MetadataPolicy::strip;
  /// --rocm-libraries: a ROCm wheel's bundled libraries from the site's ROCm modules where it has
  /// them (auto), always (modules: an error where it cannot), or never (bundled).
  easybuild::RocmLibraryMode rocm_libraries = easybuild::RocmLibraryMode::automatic;
  unsigned threads = 0;  // 0: one per core
  bool force = false;    // replace an existing prefix (and module file)
  /// Projects whose wheel's file is kept where two wheels ship one path with different bytes
  /// (--clash-winner); without one such a clash is refused.
  std::vector<std::string> clash_winners;
  bool no_compile = false;
  bool write_module = false;
  /// --module-name NAME/VERSION: the module --module writes ("": the prefix's, which must then be
  /// an installation directory <software>/<Name>/<version>).
  std::string module_name;
  bool strict_modules = false;  // --strict: a module --module loads that is not installed: exit 6
  /// --strict: a wheel that installs start-up code into site-packages (a .pth file,
  /// sitecustomize, usercustomize, a module shadowing the standard library) is refused, exit 6,
  /// before anything is unpacked; without it, a warning.
  bool strict_startup = false;
  std::string modulepath;                           // "": <installpath>/modules beside software/
  std::optional<emit::ModuleSyntax> module_syntax;  // nullopt: EasyBuild's module-syntax, Lua
  std::string module_naming_scheme;  // "": EasyBuild's module-naming-scheme, EasyBuildMNS
};

/// A module the installation is made against, and where this site has it.
struct PlannedModule {
  std::string module;                         // cuDNN/9.5.0.50-CUDA-12.6.0
  std::optional<std::filesystem::path> root;  // its installation directory; nullopt: not found
};

/// A CUDA library whose wheel directory the relink replaces by a module's directory.
struct PlannedRelink {
  std::string package;                  // nvidia-cudnn-cu12
  std::string wheel_libdir;             // nvidia/cudnn/lib (below site-packages)
  std::string module;                   // cuDNN/9.5.0.50-CUDA-12.6.0
  std::filesystem::path module_libdir;  // <root>/lib; empty where the module was not found
};

/// Where the prefix came from.
enum class PrefixSource {
  option,          // --prefix
  easybuild_name,  // EasyBuild's name for the easyconfig under the site's software path
};

/// Everything `install` will do, decided before anything is downloaded or written.
struct InstallPlan {
  std::string toolchain;             // foss-2024a
  easybuild::Generation generation;  // its generation's tables (owned: the relink maps by them)
  SiteSettings site;                 // software path, locks, module layout settings
  std::filesystem::path prefix;      // absolute
  PrefixSource prefix_source = PrefixSource::option;
  bool prefix_exists = false;  // and `replace` says whether --force replaces it
  prefix::ReplaceExisting replace = prefix::ReplaceExisting::no;
  /// SPEC...: the resolution (target, variant and why, every wheel with its URL and sha256,
  /// dependencies mapped to modules or bundled); nullopt for --wheel FILE...
  std::optional<resolve::ResolveReport> resolution;
  std::chrono::milliseconds resolving_took{0};     // for the install log
  std::vector<std::filesystem::path> wheel_files;  // --wheel FILE..., in install order
  std::vector<PlannedModule> modules;              // made against, sorted, each once
  std::vector<PlannedRelink> relinks;              // the search-path edits, by library
  /// A ROCm wheel's bundled libraries: which the site's ROCm modules provide (removed, the relink
  /// points at the modules) and which stay, and why; nullopt for other accelerators.
  std::optional<easybuild::RocmPlan> rocm;
  /// pip names the modules satisfy (the CUDA libraries), each with its module: dropped from
  /// METADATA with `metadata` strip (kept in wheelmod.json), left for a bundle with keep.
  std::map<std::string, std::string> module_provided;
  easybuild::MetadataPolicy metadata = easybuild::MetadataPolicy::strip;
  std::string python_version;                       // X.Y of lib/pythonX.Y
  std::optional<std::filesystem::path> python_exe;  // byte-compiles; nullopt: --no-compile
  std::set<std::string> clash_winners;              // PEP 503 names
  std::vector<std::string> preferred_modules;       // --prefer-module
  unsigned threads = 0;
  std::string patchelf;
  Getenv getenv;                  // the selection's: where the loaded modules (EBROOT*) are read
  prefix::Provenance provenance;  // what the prefix will record of this plan
  /// The prefix already holds an installation wheelmod made from the same resolution (wheels and
  /// their hashes, modules, toolchain, Python, accelerator): execute_install does nothing but
  /// check it again with --force, as pip's "already satisfied" and eb's skip of an installed
  /// module. A different one needs --force (plan_install says what differs).
  bool already_installed = false;
  /// What the prefix holds, when it is a wheelmod installation (its provenance).
  std::optional<prefix::Provenance> installed;
  std::optional<ModuleFilePlan> module_file;  // --module: where, in which syntax
  bool refuse_startup_code = false;           // --strict: start-up code is refused, not warned of
  /// --module: the modules the file will load, and those of them no module tree here has.
  std::vector<std::string> module_loads;
  std::vector<std::string> module_loads_missing;
  // How the wheels are fetched.
  DownloadSettings download;
  ConnectionSettings connection;
  std::string cache_dir;
  std::filesystem::path download_area;  // PARENT/.NAME.wheelmod-downloads, beside the prefix
};

enum class InstallOutcome {
  installed,          // the wheels were installed (into a new prefix, or replacing one)
  already_installed,  // the prefix holds an installation of the same plan: nothing was done
  rechecked,          // the same, with --force: its libraries were checked again
};

/// A file a wheel installs into site-packages that Python runs at start-up, or that shadows the
/// standard library (wheel/startup_code.hpp): what install warns of, logs and reports. The text
/// is as the wheel has it (untrusted: print it through terminal_text).
struct StartupCode {
  std::string wheel;   // the wheel's file name
  std::string kind;    // "pth", "sitecustomize", "usercustomize", "stdlib_shadow"
  std::string path;    // where it is, relative to site-packages: "json/__init__.py"
  std::string module;  // what `import` finds it as: "json"; "" for a .pth file
  std::string why;     // "shadows the standard library's json: ..."
};

struct InstallResult {
  InstallOutcome outcome = InstallOutcome::installed;
  prefix::PrefixInstallResult install;
  std::vector<StartupCode> startup_code;    // of the wheels installed, in install order
  std::optional<easybuild::RocmPlan> rocm;  // a ROCm wheel's bundled libraries, as placed
  std::optional<std::filesystem::path> module_file;
  std::string module_name;  // what `module load` takes: PyTorch/2.6.0-foss-2024a-CUDA-12.6.0-whl
};

/// Decides the installation: reads the site's EasyBuild configuration and modules and the
/// index's pages (no wheel is downloaded, nothing is written). Throws UsageError (bad options,
/// an existing prefix or module file without force), CheckFailedError (a CUDA library no module
/// provides, unless --bundle-missing), and what resolving throws.
InstallPlan plan_install(const InstallOptions& options, Reporter& reporter);

/// Carries `plan` out: takes EasyBuild's lock, downloads, installs into a staging directory,
/// commits, writes the module file. Start-up code in a wheel is a warning, or with
/// `refuse_startup_code` a CheckFailedError before anything is unpacked. Throws UsageError (the
/// prefix appeared meanwhile), CheckFailedError (a library that does not load, before the
/// commit), and what downloading and unpacking throw.
InstallResult execute_install(const InstallPlan& plan, Reporter& reporter);

/// plan_install, then execute_install.
InstallResult install(const InstallOptions& options, Reporter& reporter);

}  // namespace wheelmod::operations
