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
  std::uint16_t flags = 0;   // general purpose bit flag (§4.4.4); bit 3: a data descriptor follows
  std::uint32_t crc32 = 0;
  std::uint64_t compressed_size = 0;
  std::uint64_t uncompressed_size = 0;
  std::uint64_t local_header_offset = 0;
  std::uint64_t data_offset = 0;  // after the local header: set by read_zip_layout, else 0
};

/// Where the central directory is, from the archive's last bytes.
struct CentralDirectoryLocation {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint64_t entries = 0;
};

/// Finds the end-of-central-directory record in `tail`, the last bytes of an archive of
/// `archive_size` bytes (read at least 64 KiB + 22 bytes so the comment fits), following the ZIP64
/// locator and record when present in `tail`. Archives that zip readers read differently are
/// refused: more than one end record, one whose comment holds another's signature or that bytes
/// follow, or a central directory that does not end where the end records begin.
pep::Parsed<CentralDirectoryLocation> find_central_directory(std::span<const std::uint8_t> tail,
                                                             std::uint64_t archive_size);

/// Parses `count` central directory headers from `bytes`, which they must fill exactly (readers
/// that go by the directory's size, like Python's zipfile, would otherwise see other entries).
pep::Parsed<std::vector<ZipEntryInfo>> parse_central_directory(std::span<const std::uint8_t> bytes,
                                                               std::uint64_t count);

/// Length of the local file header starting `bytes` (fixed + name + extra): where data begins.
pep::Parsed<std::uint64_t> local_header_length(std::span<const std::uint8_t> bytes);

/// Checks where each entry's bytes lie: its local header (`local_header_lengths[i]` bytes), its
/// data (the compressed size) and, with flag bit 3, a data descriptor (at least 12 bytes, 20 for
/// ZIP64 sizes; §4.3.9). Each must lie before `data_end` (the central directory's offset) and no
/// two may share a byte: overlapping entries are how a small archive inflates to any size
/// (Fifield, "A better zip bomb", WOOT 2019), and Python's zipfile refuses them too ("Overlapped
/// entries"). Returns the bytes the entries cover.
pep::Parsed<std::uint64_t> check_entry_ranges(std::span<const ZipEntryInfo> entries,
                                              std::span<const std::uint64_t> local_header_lengths,
                                              std::uint64_t data_end);

/// Inflates raw deflate data (method 8) or copies stored data (0), checking size and CRC-32.
pep::Parsed<std::string> extract_entry_data(const ZipEntryInfo& entry,
                                            std::span<const std::uint8_t> data);

/// A CRC-32 as wheelmod's messages print it (`0x1a2b3c4d`): both readers of
/// an entry's data report a mismatch the same way.
std::string crc32_text(std::uint32_t crc);

}  // namespace wheelmod::wheel
