// RECORD files of installed and packed wheels: CSV rows `path,hash,size`, hash being
// `<algorithm>=<urlsafe-base64 digest without padding>`, CSV as Python's csv module (wheel, pip)
// writes it (`,` `"` or line breaks quoted, `"` doubled inside quotes). Spec: PEP 376/627 and
// https://packaging.python.org/en/latest/specifications/recording-installed-packages/#the-record-file
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pep/parse_error.hpp"

namespace wheelmod::pep {

struct RecordHash {
  std::string algorithm;             // "sha256"
  std::vector<std::uint8_t> digest;  // raw bytes
  /// `sha256=<urlsafe b64, no padding>`
  [[nodiscard]] std::string str() const;
  friend bool operator==(const RecordHash&, const RecordHash&) = default;
};

struct RecordEntry {
  std::string path;  // relative, `/`-separated
  std::optional<RecordHash> hash;
  std::optional<std::uint64_t> size;
  friend bool operator==(const RecordEntry&, const RecordEntry&) = default;
};

/// Parses a whole RECORD: 3 fields a row; hash or size may be empty (RECORD's own row, .pyc files).
Parsed<std::vector<RecordEntry>> parse_record(std::string_view text);

/// Writes rows as csv.writer would, with `\n` line ends as `wheel` does (pip: `\r\n`; both read).
std::string write_record(const std::vector<RecordEntry>& entries);

enum class RecordCheck { ok, no_hash, hash_mismatch, size_mismatch, unsupported_algorithm };

/// Checks a computed sha256 and `size` against `entry`: no_hash without hash; size only if given.
RecordCheck check_record_entry(const RecordEntry& entry,
                               std::span<const std::uint8_t> sha256_digest, std::uint64_t size);

/// RFC 4648 §5 base64url without `=` padding (as RECORD and PEP 376 use).
std::string urlsafe_b64encode_nopad(std::span<const std::uint8_t> bytes);
/// Inverse of the above; padding is tolerated. Error on other characters.
Parsed<std::vector<std::uint8_t>> urlsafe_b64decode(std::string_view text);

}  // namespace wheelmod::pep
