// `wheelmod relink`: every ELF file of an installed prefix gets its search path re-pointed from
// the nvidia-* wheel directories it was built for at the site's EasyBuild module directories
// (easybuild/library_map.hpp), written in place where it fits (elf/search_path_editor.hpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/reporter.hpp"
#include "easybuild/config.hpp"
#include "easybuild/library_map.hpp"
#include "easybuild/rocm_libraries.hpp"
#include "elf/search_path_editor.hpp"

namespace wheelmod::prefix {

/// The one `lib/pythonX.Y/site-packages` of `prefix`; UsageError (exit 2) for none or several.
std::filesystem::path find_site_packages(const std::filesystem::path& prefix);

/// Every regular ELF file below `prefix`, in path order, symlinks not followed; the partial copies
/// a killed relink left (".NAME.wheelmod-XXXXXX" beside NAME) are skipped. Throws IoError when
/// the directory cannot be walked.
std::vector<std::filesystem::path> elf_files(const std::filesystem::path& prefix);

/// An ELF file of a prefix and its dynamic facts.
struct PrefixElfFile {
  std::filesystem::path path;
  elf::DynamicInfo info;
};

/// The same walk, each file's dynamic facts read while it is open for the magic (one open per
/// file). Throws IoError for a file whose ELF structures are broken (elf::read_dynamic), the
/// first in path order.
std::vector<PrefixElfFile> elf_files_with_dynamic(const std::filesystem::path& prefix);

struct RelinkOptions {
  const easybuild::Generation* generation = nullptr;  // required: the tables to map with
  std::vector<std::string> modules;  // preferred providers: the modules the resolution chose
  easybuild::ModuleLocator locator;
  /// What EasyBuild's RPATH sanity check expects (DT_RPATH); DT_RUNPATH on request.
  elf::SearchPathTag tag = elf::SearchPathTag::rpath;
  bool dry_run = false;
  std::string patchelf = "patchelf";
  /// A staging prefix nothing has mapped: growing paths are edited without a copy (EditOptions).
  bool staging = false;
  /// The bundled ROCm libraries taken from modules (easybuild/rocm_libraries.hpp), by every
  /// name a file may need them under: a file that needs one gets its module's directory.
  std::map<std::string, easybuild::RocmLink> rocm_links;
  /// `relink --rocm-libraries modules`: the bundled ROCm copies this plan takes from modules are
  /// removed (with their data and RECORD rows) before the paths are planned, and its links added.
  std::optional<easybuild::RocmPlan> rocm_take;
};

struct FileRelink {
  std::filesystem::path file;  // relative to the prefix
  easybuild::SearchPathPlan plan;
  elf::SearchPathEdit edit;
};

struct RelinkReport {
  std::filesystem::path prefix;
  std::uint64_t elf_files = 0;            // ELF files seen
  std::vector<FileRelink> files;          // those with a search path, in path order
  std::vector<std::string> rocm_removed;  // bundled ROCm files removed (rocm_take), site-relative
};

/// Takes the prefix's lock (staging.hpp) unless dry_run or staging. Plans every file first; when
/// any entry is unmapped (a library no installed module provides), throws CheckFailedError (exit
/// 6) listing the packages and files before anything is written. Then removes the copies a killed
/// relink left and edits each file. Throws IoError for unreadable or unwritable files.
RelinkReport relink_prefix(const std::filesystem::path& prefix, const RelinkOptions& options,
                           Reporter& reporter);

}  // namespace wheelmod::prefix
