// Where EasyBuild modules keep their files, and the search path `wheelmod relink` writes: the
// nvidia-* wheel directories a wheel names (`$ORIGIN/../../nvidia/cudnn/lib`) replaced by the
// site modules' library directories (`<installpath>/software/cuDNN/9.5.1.17-CUDA-12.6.0/lib`).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/environment.hpp"
#include "easybuild/config.hpp"

namespace wheelmod::easybuild {

/// EasyBuild's software-root variable: "EBROOT" + the name with '+' -> "plus", '-' -> "min",
/// '.' dropped, upper-cased (easybuild.tools.filetools.convert_name): cuDNN -> EBROOTCUDNN,
/// SciPy-bundle -> EBROOTSCIPYMINBUNDLE.
std::string root_variable(std::string_view software_name);
/// The matching version variable: EBVERSIONCUDNN.
std::string version_variable(std::string_view software_name);
/// The extension list a bundle's module sets: EBEXTSLISTPYTORCH.
std::string extslist_variable(std::string_view software_name);

/// The shared libraries under each module root looked in, found once per root (ModuleLocator).
struct ModuleTreeIndex;

/// Finds a module's installation directory, and the directory in it that holds a library.
struct ModuleLocator {
  /// Where EasyBuild installs software: modules live in <software_root>/<name>/<version>
  /// (--eb-installpath DIR gives DIR/software; EasyBuild's installpath-software otherwise).
  std::optional<std::filesystem::path> software_root;
  /// Reads EBROOT<NAME> / EBVERSION<NAME> of loaded modules; std::getenv by default.
  Getenv getenv;

  /// The directory of `module` ("cuDNN/9.5.1.17-CUDA-12.6.0"): under the installpath when it
  /// exists, else $EBROOTCUDNN when EBVERSIONCUDNN is the start of the module's version.
  [[nodiscard]] std::optional<std::filesystem::path> root_of(std::string_view module) const;

  /// The directory of the module installed at `root` that holds `soname`: `root/libdir` (the
  /// table's word) when the file is there, else the shallowest directory of the module's tree
  /// that has it, found by looking (CUDA keeps libcupti in extras/CUPTI/lib64, libnvvm in
  /// nvvm/lib64; a site's module may differ from the table). nullopt when the tree has none.
  [[nodiscard]] std::optional<std::filesystem::path> directory_with(
      const std::filesystem::path& root, std::string_view libdir, std::string_view soname) const;

  /// Each root's libraries, listed on first use and kept (environment_locator makes one; without
  /// it every call walks the tree again).
  std::shared_ptr<ModuleTreeIndex> tree_index = nullptr;
};

/// A module the site has installed for a CUDA library its table gives no installed module for.
struct FoundProvider {
  std::string package;  // nvidia-nvshmem-cu13
  LibraryProvider provider;
  std::string soname;  // the library found in it
};

/// For each CUDA library of `generation` whose table providers none is installed (the locator
/// finds none): a module the site has that holds one of its libraries in lib/ or lib64/ and is
/// built for one of the generation's CUDA versions (its version ends in -CUDA-<v>): first among
/// `preferred` (--prefer-module; found under the software root or loaded), then under the software
/// root, newest version first. A site's NVSHMEM for CUDA 13 or a newer cuDNN counts as much as
/// the table's.
std::vector<FoundProvider> installed_providers(const Generation& generation,
                                               const ModuleLocator& locator,
                                               const std::vector<std::string>& preferred);

/// A locator over `software_root` (nullopt: the loaded modules' EBROOT* variables only) and
/// `getenv` (the loaded modules' EBROOT*/EBVERSION* variables).
ModuleLocator environment_locator(std::optional<std::filesystem::path> software_root,
                                  Getenv getenv = process_environment());

enum class EntryAction {
  kept,      // points inside the prefix at a directory that exists, or at a system directory
  mapped,    // an nvidia-* wheel directory, replaced by a module's library directory
  dropped,   // points nowhere: nothing there, nothing to map it to
  unmapped,  // an nvidia-* wheel directory no available module provides
  added,     // no entry reached a CUDA library the file needs (DT_NEEDED): its directory
};
std::string_view action_text(EntryAction action);

struct EntryPlan {
  std::string entry;  // as written in the file ("$ORIGIN/../../nvidia/cudnn/lib")
  EntryAction action = EntryAction::kept;
  /// What the entry becomes in the new path: one directory, or several when the wheel directory's
  /// libraries lie in several directories of their modules (nvidia/cu13/lib -> CUDA's lib64 and
  /// extras/CUPTI/lib64); none when dropped or unmapped.
  std::vector<std::string> replacements;
  std::string provider;  // the module(s) for a mapped entry; the pip package for an unmapped one
  std::string note;      // why, for --dry-run and errors
};

struct SearchPathPlan {
  std::vector<EntryPlan> entries;
  std::string new_value;                // the entries' replacements, in order, each once
  [[nodiscard]] bool complete() const;  // no entry is unmapped
};

/// Where the file sits, for `$ORIGIN` and for telling inside from outside.
struct FileLocation {
  std::filesystem::path directory;      // absolute directory of the ELF file
  std::filesystem::path prefix;         // absolute root of the installation
  std::filesystem::path site_packages;  // absolute site-packages inside it
};

/// Plans the new search path for one file (`old_value`: its DT_RPATH or DT_RUNPATH). An entry
/// whose `$ORIGIN`-expanded path, relative to site-packages, is a CUDA library's wheel directory
/// (or an alias) in `generation` maps, for each library of each package the table puts in that
/// directory, to the first provider among `modules` (the resolution's choice) that the locator
/// finds, else the first it finds at all, and there to the directory holding the library
/// (ModuleLocator::directory_with) — unless that directory exists inside the prefix (bundled
/// with --bundle-missing): then it is kept. Then each of `needed`
/// (DT_NEEDED) that is a CUDA library of `generation` in none of the new path's directories gets
/// its directory added: the bundled wheel's ($ORIGIN-relative) or the module's (unmapped when
/// none). Why: torchvision's _C.so names only `$ORIGIN/../torch/lib` yet needs libcudart.so.12;
/// it loads after `import torch` only because ld.so reuses the object loaded under that SONAME.
/// With the directory in its own RPATH it loads alone, as EasyBuild's RPATH sanity check expects.
/// `rocm_links` (rocm_libraries.hpp RocmPlan::links): the bundled ROCm libraries taken from
/// modules, by every name a file needs them under; each one the file needs gets its module's
/// directory added after the file's own entries (its bundled copy is gone from `$ORIGIN`).
struct RocmLink;
SearchPathPlan plan_search_path(std::optional<std::string_view> old_value,
                                const FileLocation& location, const Generation& generation,
                                const std::vector<std::string>& modules,
                                const ModuleLocator& locator,
                                const std::vector<std::string>& needed = {},
                                const std::map<std::string, RocmLink>* rocm_links = nullptr);

}  // namespace wheelmod::easybuild
