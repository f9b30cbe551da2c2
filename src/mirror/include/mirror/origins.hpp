// Where each file of a wheelmod mirror came from, as its manifest (wheelmod-mirror.json) records
// it: what `wheelmod easyconfig` writes as an extension's source_urls when the index is such a
// mirror, so that a file meant for easybuild-easyconfigs names the public upstream, not the
// site's copy.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace wheelmod::mirror {

/// The manifest's name in a mirror directory.
inline constexpr const char* k_manifest_file = "wheelmod-mirror.json";

struct MirrorOrigins {
  std::string source_index;  // the spec's index when the mirror was written
  /// Upstream URL (credentials removed) by the file's path below files/
  /// (`whl/cu126/torch-2.6.0+cu126-….whl`, `packages/…/sympy-1.13.1-py3-none-any.whl`).
  std::map<std::string, std::string> by_path;
};

/// The origins of the mirror in `dir`; nullopt when it holds no manifest. Throws IoError for a
/// manifest that is not one (not JSON, another schema).
std::optional<MirrorOrigins> read_origins(const std::filesystem::path& dir);

/// The origins in a manifest's text (fetched from `where`, a URL, which errors name).
MirrorOrigins parse_origins(const std::string& text, const std::string& where);

}  // namespace wheelmod::mirror
