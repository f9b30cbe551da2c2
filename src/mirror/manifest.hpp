// The mirror's manifest, `DIR/wheelmod-mirror.json`: for every stored file
// its upstream URL, sha256, size, when it was fetched and which variant
// pages list it. What makes a re-run incremental (a file in the manifest,
// present with its size, is not downloaded again) and what --verify checks.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mirror/origins.hpp"

namespace wheelmod::mirror {

inline constexpr const char* k_manifest_name = k_manifest_file;

struct ManifestFile {
  std::string filename;           // the key: where it is kept, DIR/files/<filename> (layout.hpp)
  std::string project;            // normalised project name
  std::string url;                // upstream URL it came from
  std::string sha256;             // lower-case hex of the stored bytes
  bool sha256_from_index = true;  // false: upstream gave none; computed on download
  std::uint64_t size = 0;
  std::string fetched;                         // UTC, RFC 3339 ("2026-12-02T21:52:42Z")
  std::optional<std::string> metadata_sha256;  // of DIR/files/<filename>.metadata
  std::optional<std::string> requires_python;
  std::vector<std::string> variants;  // sorted, each once
};

struct Manifest {
  std::string source_index;                   // the spec's index when written
  std::map<std::string, ManifestFile> files;  // by filename
};

/// Reads DIR/wheelmod-mirror.json; an empty Manifest when there is none.
/// A file that is not a manifest of this schema is an IoError naming it
/// (hint: not a wheelmod mirror, or written by a newer wheelmod).
Manifest read_manifest(const std::filesystem::path& dir);

/// The manifest in `text`, as read_manifest checks it; `file` names it in errors (a path, or
/// the URL it was fetched from).
Manifest parse_manifest(const std::string& text, const std::filesystem::path& file);

/// Writes it atomically (temporary, fsync, rename), keys sorted, 2-space
/// JSON, so that an unchanged mirror gives byte-identical manifests; not
/// rewritten (false) when the bytes on disk are already these.
bool write_manifest(const std::filesystem::path& dir, const Manifest& manifest);

/// Now, as the manifest writes it.
std::string utc_now();

}  // namespace wheelmod::mirror
