// Reading a zip archive's structure from byte ranges, without the whole file: the
// end-of-central-directory record (and its ZIP64 form), the central directory, and a local file
// header. Pure: bytes in, records out. Spec: PKWARE APPNOTE.TXT 6.3.x, §4.3 and §4.4.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pep/parse_error.hpp"

namespace wheelmod::wheel {

struct ZipEntryInfo {
  std::string name;
  std::uint16_t method = 0;  // 0 stored, 8 deflated
  std::uint32_t crc32 = 0;
  std::uint64_t compressed_size = 0;
  std::uint64_t uncompressed_size = 0;
  std::uint64_t local_header_offset = 0;
};

/// Where the central directory is, from the archive's last bytes.
struct CentralDirectoryLocation {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint64_t entries = 0;
};

/// Finds the end-of-central-directory record in `tail`, the last bytes of an archive of
/// `archive_size` bytes (read at least 64 KiB + 22 bytes so the comment fits), following the ZIP64
/// locator and record when present in `tail`.
pep::Parsed<CentralDirectoryLocation> find_central_directory(std::span<const std::uint8_t> tail,
                                                             std::uint64_t archive_size);

/// Parses `count` central directory headers from `bytes`.
pep::Parsed<std::vector<ZipEntryInfo>> parse_central_directory(std::span<const std::uint8_t> bytes,
                                                               std::uint64_t count);

/// Length of the local file header starting `bytes` (fixed + name + extra): where data begins.
pep::Parsed<std::uint64_t> local_header_length(std::span<const std::uint8_t> bytes);

/// Inflates raw deflate data (method 8) or copies stored data (0), checking size and CRC-32.
pep::Parsed<std::string> extract_entry_data(const ZipEntryInfo& entry,
                                            std::span<const std::uint8_t> data);

}  // namespace wheelmod::wheel
