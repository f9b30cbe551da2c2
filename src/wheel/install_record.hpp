// The wheel's own RECORD held against its archive before anything is
// written. Spec: PyPA "Binary distribution format", "The .dist-info
// directory": RECORD lists every file but itself (and its signatures
// RECORD.jws / RECORD.p7s) with a hash; PEP 427 requires sha256 or
// stronger, and this installer checks sha256 only.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "hash/sha256.hpp"
#include "pep/record.hpp"

namespace wheelmod::wheel {

/// A regular file of the archive, by its normalised path.
struct ArchiveFile {
  std::string path;
  std::uint64_t size = 0;  // from the central directory
};

/// Expected digest per normalised path; nothing for a signature file that
/// RECORD does not list.
using RecordDigests = std::unordered_map<std::string, std::optional<hash::Sha256Digest>>;

/// Checks that `record` and `files` agree: each file listed once with a
/// sha256 hash and, when RECORD gives one, the central directory's size;
/// no row for a file that is absent. `dist_info` locates RECORD and its
/// signatures. Throws IntegrityError naming `wheel` and the entry.
RecordDigests match_record(std::span<const pep::RecordEntry> record,
                           std::span<const ArchiveFile> files, std::string_view dist_info,
                           const std::string& wheel);

}  // namespace wheelmod::wheel
