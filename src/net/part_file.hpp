// Private to wheelmod_net: the files of a download in flight. Bytes land
// in `NAME.part`; `NAME.part.json` remembers where they came from (URL and
// validator) so that a later run may resume them with Range + If-Range
// (RFC 9110 §14.2, §13.1.5) — and only then. The final name appears by
// rename(2) once the digest is verified, so it never holds a partial file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "hash/sha256.hpp"

namespace wheelmod::net {

std::filesystem::path part_path(const std::filesystem::path& destination);
std::filesystem::path resume_info_path(const std::filesystem::path& destination);

/// What a `.part` needs for a safe resume.
struct ResumeInfo {
  std::string url;
  /// A strong ETag or, failing that, Last-Modified: the If-Range value.
  std::string validator;
  std::optional<std::uint64_t> size;  // the whole file's, when the server said
};

/// The `.part` an earlier run left and its ResumeInfo, when both exist and
/// the info is readable; nullopt otherwise.
struct LeftoverPart {
  ResumeInfo info;
  std::uint64_t bytes = 0;
};
std::optional<LeftoverPart> find_leftover(const std::filesystem::path& destination);

/// Writes the sidecar (temp file + rename). Throws IoError.
void write_resume_info(const std::filesystem::path& destination, const ResumeInfo& info);

/// Removes `.part` and its sidecar; missing files are fine.
void remove_part(const std::filesystem::path& destination);

/// `.part` -> the final name, then drops the sidecar. Throws IoError.
void commit_part(const std::filesystem::path& destination);

/// Copies `from` to `to` in one pass, hashing the bytes as they go (so a
/// copy is verified without reading the source twice). Throws IoError.
hash::FileDigest copy_hashing(const std::filesystem::path& from, const std::filesystem::path& to);

/// A name beside `path` for a temporary that no other process picks:
/// `.NAME.tmp-PID-N`.
std::filesystem::path temporary_beside(const std::filesystem::path& path);

}  // namespace wheelmod::net
