// Changes to an installed project's dist-info after unpacking: dropping
// the Requires-Dist lines that EasyBuild modules satisfy without being
// Python packages (nvidia-cudnn-cu12 -> the cuDNN module), so that
// `pip check` passes; recording why in `wheelmod.json`; and keeping RECORD
// true to the files (PyPA "Recording installed projects").
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "wheel/installer.hpp"

namespace wheelmod::prefix {

struct MetadataRewrite {
  std::string text;                  // METADATA without the lines
  std::vector<std::string> removed;  // the Requires-Dist values removed, as written
};

/// `metadata` without the Requires-Dist headers whose requirement names
/// (PEP 503 normalised) are in `names`; every other byte as it was.
MetadataRewrite without_requirements(std::string_view metadata, const std::set<std::string>& names);

/// Rewrites the installed METADATA of `installed` (its dist_info is
/// relative to `prefix`) without those
/// requirements, writes `wheelmod.json` beside it ({"schema_version": 1,
/// "removed_requires_dist": [...], "provided_by": provided_by}), and
/// updates RECORD. Nothing happens when no line matches. Throws IoError.
void strip_module_requirements(const std::filesystem::path& prefix,
                               const std::filesystem::path& site_packages,
                               const wheel::InstalledWheel& installed,
                               const std::set<std::string>& names,
                               const std::map<std::string, std::string>& provided_by);

/// Drops the rows of `files` (paths relative to site-packages, as RECORD writes them) from the
/// RECORD of the project whose dist-info is `dist_info` (relative to the prefix): another wheel's
/// file is in their place. Throws IoError.
void remove_from_record(const std::filesystem::path& prefix, const std::filesystem::path& dist_info,
                        const std::filesystem::path& site_packages,
                        const std::set<std::string>& files);

/// Appends `files` (paths relative to site-packages, e.g. byte-compiled
/// `.pyc` files) with their sha256 and size to the RECORD of the project
/// whose dist-info is `dist_info` (relative to the prefix). Throws IoError.
void add_to_record(const std::filesystem::path& prefix, const std::filesystem::path& dist_info,
                   const std::filesystem::path& site_packages,
                   const std::vector<std::string>& files);

}  // namespace wheelmod::prefix
