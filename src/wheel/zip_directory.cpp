// Zip structures from byte ranges. Every field read goes through Reader,
// which checks bounds, so a truncated or lying archive is a ParseError.
// Spec: PKWARE APPNOTE.TXT 6.3.10 (section numbers below refer to it).
#include "wheel/zip_directory.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <expected>
#include <limits>

namespace wheelmod::wheel {

namespace {

using pep::ParseError;

constexpr std::uint32_t k_local_header_signature = 0x04034b50;    // §4.3.7
constexpr std::uint32_t k_central_header_signature = 0x02014b50;  // §4.3.12
constexpr std::uint32_t k_zip64_end_signature = 0x06064b50;       // §4.3.14
constexpr std::uint32_t k_zip64_locator_signature = 0x07064b50;   // §4.3.15
constexpr std::uint32_t k_end_signature = 0x06054b50;             // §4.3.16

constexpr std::size_t k_end_size = 22;
constexpr std::size_t k_zip64_locator_size = 20;
constexpr std::size_t k_zip64_end_size = 56;
constexpr std::size_t k_central_header_size = 46;
constexpr std::size_t k_local_header_size = 30;
constexpr std::size_t k_max_comment = 0xFFFF;
constexpr std::uint16_t k_zip64_extra_id = 0x0001;  // §4.5.3

// Larger entries are refused before inflating: METADATA is a few KiB, and
// an archive may claim any size (a zip bomb).
constexpr std::uint64_t k_max_entry_size = 64ULL * 1024 * 1024;

std::unexpected<ParseError> fail(std::string input, std::string message) {
  return std::unexpected(ParseError{std::move(input), std::move(message)});
}

// Little-endian reads (§4.4: "All values are stored in little-endian byte
// order unless otherwise specified"), bounds-checked by the caller via has().
class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> bytes) : m_bytes(bytes) {}

  [[nodiscard]] bool has(std::size_t offset, std::size_t length) const {
    return offset <= m_bytes.size() && length <= m_bytes.size() - offset;
  }
  [[nodiscard]] std::uint16_t u16(std::size_t offset) const {
    return static_cast<std::uint16_t>(m_bytes[offset] | (m_bytes[offset + 1] << 8));
  }
  [[nodiscard]] std::uint32_t u32(std::size_t offset) const {
    return static_cast<std::uint32_t>(u16(offset)) |
           (static_cast<std::uint32_t>(u16(offset + 2)) << 16);
  }
  [[nodiscard]] std::uint64_t u64(std::size_t offset) const {
    return static_cast<std::uint64_t>(u32(offset)) |
           (static_cast<std::uint64_t>(u32(offset + 4)) << 32);
  }
  [[nodiscard]] std::string text(std::size_t offset, std::size_t length) const {
    const auto part = m_bytes.subspan(offset, length);
    return {part.begin(), part.end()};
  }

 private:
  std::span<const std::uint8_t> m_bytes;
};

// The EOCD is the last structure and has a variable-length comment, so it
// is searched backwards (§4.3.16). Readers disagree on which of several
// candidates is the archive's: Python's zipfile (pip) takes the last
// signature (zipfile.py _EndRecData, rfind), libzip the most consistent one.
// An archive whose first record's comment hides a second archive's central
// directory and end record is one wheel to wheelmod and another to pip and
// `unzip -l`. So exactly one record may end the file: the last signature,
// its comment reaching the last byte, and no earlier record that also does.
// `tail_start` only places offsets in messages.
pep::Parsed<std::size_t> find_end_record(const Reader& reader, std::size_t size,
                                         std::uint64_t tail_start) {
  if (size < k_end_size)
    return fail("zip end record", "no end-of-central-directory record: " + std::to_string(size) +
                                      " bytes are fewer than one takes");
  const std::size_t last = size - k_end_size;
  const std::size_t first = last > k_max_comment ? last - k_max_comment : 0;
  const auto ends_file = [&](std::size_t pos) {
    return pos + k_end_size + reader.u16(pos + 20) == size;
  };
  std::optional<std::size_t> found;
  for (std::size_t pos = last + 1; pos-- > first;) {
    if (reader.u32(pos) != k_end_signature) continue;
    const auto at = [&](std::size_t p) { return std::to_string(tail_start + p); };
    if (!found) {
      if (!ends_file(pos))
        return fail("zip end record",
                    "the last end-of-central-directory record (offset " + at(pos) +
                        ") does not end the archive: bytes follow its comment, or it lies inside "
                        "another record's comment; zip readers would not agree on the contents");
      found = pos;
    } else if (ends_file(pos)) {
      return fail("zip end record",
                  "two end-of-central-directory records end the archive (offsets " + at(pos) +
                      " and " + at(*found) +
                      "): the first one's comment holds a second archive, which other zip "
                      "readers (pip, unzip) would list instead");
    }
  }
  if (!found)
    return fail("zip end record", "no end-of-central-directory record in the last " +
                                      std::to_string(size) +
                                      " bytes: not a zip archive, or truncated");
  return *found;
}

// §4.3.14 and §4.3.15: the ZIP64 locator sits right before the EOCD and
// points at the ZIP64 end record, which carries 64-bit counts and offsets.
pep::Parsed<CentralDirectoryLocation> read_zip64_end(const Reader& reader, std::size_t end_pos,
                                                     std::uint64_t tail_start) {
  const std::size_t locator = end_pos - k_zip64_locator_size;
  if (reader.u32(locator + 4) != 0 || reader.u32(locator + 16) > 1)
    return fail("zip64 end locator", "split (multi-disk) archives are not supported");
  const std::uint64_t record = reader.u64(locator + 8);
  if (record < tail_start || record - tail_start > locator ||
      !reader.has(static_cast<std::size_t>(record - tail_start), k_zip64_end_size))
    return fail("zip64 end locator", "the ZIP64 end record at offset " + std::to_string(record) +
                                         " is not within the bytes read");
  const auto pos = static_cast<std::size_t>(record - tail_start);
  if (reader.u32(pos) != k_zip64_end_signature)
    return fail("zip64 end record", "bad signature at offset " + std::to_string(record));
  if (reader.u32(pos + 16) != 0 || reader.u32(pos + 20) != 0)
    return fail("zip64 end record", "split (multi-disk) archives are not supported");
  // §4.3.14.1: the record's size, counted after its first 12 bytes, reaches the locator.
  if (const std::uint64_t rest = reader.u64(pos + 4);
      rest < k_zip64_end_size - 12 || rest > locator - pos - 12 || pos + 12 + rest != locator)
    return fail("zip64 end record", "its size field (" + std::to_string(rest) +
                                        ") does not reach the ZIP64 end locator");
  const std::uint64_t on_disk = reader.u64(pos + 24);
  const CentralDirectoryLocation location{.offset = reader.u64(pos + 48),
                                          .size = reader.u64(pos + 40),
                                          .entries = reader.u64(pos + 32)};
  if (on_disk != location.entries)
    return fail("zip64 end record", "split (multi-disk) archives are not supported");
  // The central directory ends where the ZIP64 end record begins: bytes between them would be
  // entries that readers going by the directory's size see and others do not.
  if (location.offset > record || location.size != record - location.offset)
    return fail("zip64 end record",
                "the central directory (offset " + std::to_string(location.offset) + ", size " +
                    std::to_string(location.size) + ") does not end where the ZIP64 end record " +
                    "begins (" + std::to_string(record) + ")");
  return location;
}

}  // namespace

pep::Parsed<CentralDirectoryLocation> find_central_directory(std::span<const std::uint8_t> tail,
                                                             std::uint64_t archive_size) {
  if (tail.size() > archive_size)
    return fail("zip end record", "more bytes (" + std::to_string(tail.size()) +
                                      ") than the archive size (" + std::to_string(archive_size) +
                                      ")");
  const Reader reader(tail);
  const std::uint64_t tail_start = archive_size - tail.size();
  const auto end_pos = find_end_record(reader, tail.size(), tail_start);
  if (!end_pos) return std::unexpected(end_pos.error());
  const std::size_t pos = *end_pos;
  const std::uint16_t disk = reader.u16(pos + 4);
  const std::uint16_t cd_disk = reader.u16(pos + 6);
  const std::uint16_t on_disk = reader.u16(pos + 8);
  const std::uint16_t entries = reader.u16(pos + 10);
  const std::uint32_t size = reader.u32(pos + 12);
  const std::uint32_t offset = reader.u32(pos + 16);

  // §4.4.1.4: a field too small for its value holds all ones and the ZIP64
  // record has the real value. Some writers add the locator even when
  // nothing overflows; then the ZIP64 record is authoritative too.
  const bool overflow = entries == 0xFFFF || on_disk == 0xFFFF || size == 0xFFFFFFFF ||
                        offset == 0xFFFFFFFF || disk == 0xFFFF || cd_disk == 0xFFFF;
  const bool has_locator = pos >= k_zip64_locator_size &&
                           reader.u32(pos - k_zip64_locator_size) == k_zip64_locator_signature;
  if (has_locator) return read_zip64_end(reader, pos, tail_start);
  if (overflow && pos < k_zip64_locator_size && tail_start > 0)
    return fail("zip end record", "the ZIP64 end locator lies before the last " +
                                      std::to_string(tail.size()) +
                                      " bytes: read more of the archive's end");
  if (overflow)
    return fail("zip end record", "fields are marked ZIP64 but there is no ZIP64 end locator");
  if (disk != 0 || cd_disk != 0 || on_disk != entries)
    return fail("zip end record", "split (multi-disk) archives are not supported");
  // The central directory ends where the end record begins (§4.3.6): a gap would hold bytes
  // that readers going by its size, or by an offset relative to prepended data (Python's
  // zipfile), read as other entries.
  const std::uint64_t end_offset = tail_start + pos;
  if (offset > end_offset || size != end_offset - offset)
    return fail("zip end record", "the central directory (offset " + std::to_string(offset) +
                                      ", size " + std::to_string(size) +
                                      ") does not end where the end record begins (" +
                                      std::to_string(end_offset) + ")");
  return CentralDirectoryLocation{.offset = offset, .size = size, .entries = entries};
}

namespace {

// §4.5.3: the ZIP64 extra field holds, in this order, only those of
// uncompressed size, compressed size, local header offset (and disk) whose
// 32-bit field in the header is all ones.
std::optional<std::string> apply_zip64_extra(const Reader& reader, std::size_t begin,
                                             std::size_t length, ZipEntryInfo& entry,
                                             bool need_usize, bool need_csize, bool need_offset) {
  std::size_t pos = begin;
  const std::size_t end = begin + length;
  while (pos + 4 <= end) {
    const std::uint16_t id = reader.u16(pos);
    const std::uint16_t field_size = reader.u16(pos + 2);
    pos += 4;
    if (field_size > end - pos) return "an extra field runs past the header";
    if (id == k_zip64_extra_id) {
      std::size_t at = pos;
      const std::size_t field_end = pos + field_size;
      auto take = [&](std::uint64_t& out) {
        if (at + 8 > field_end) return false;
        out = reader.u64(at);
        at += 8;
        return true;
      };
      if ((need_usize && !take(entry.uncompressed_size)) ||
          (need_csize && !take(entry.compressed_size)) ||
          (need_offset && !take(entry.local_header_offset)))
        return "the ZIP64 extra field is too short";
      return std::nullopt;
    }
    pos += field_size;
  }
  if (need_usize || need_csize || need_offset)
    return "sizes are marked ZIP64 but there is no ZIP64 extra field";
  return std::nullopt;
}

}  // namespace

pep::Parsed<std::vector<ZipEntryInfo>> parse_central_directory(std::span<const std::uint8_t> bytes,
                                                               std::uint64_t count) {
  const Reader reader(bytes);
  // Each header takes at least 46 bytes: a count that cannot fit is a lie,
  // and checking it first keeps reserve() bounded.
  if (count > bytes.size() / k_central_header_size)
    return fail("zip central directory", std::to_string(count) + " entries cannot fit in " +
                                             std::to_string(bytes.size()) + " bytes");
  std::vector<ZipEntryInfo> entries;
  entries.reserve(static_cast<std::size_t>(count));
  std::size_t pos = 0;
  for (std::uint64_t index = 0; index < count; ++index) {
    const std::string where = "zip central directory entry " + std::to_string(index);
    if (!reader.has(pos, k_central_header_size))
      return fail(where, "truncated at offset " + std::to_string(pos));
    if (reader.u32(pos) != k_central_header_signature)
      return fail(where, "bad signature at offset " + std::to_string(pos));
    // §4.3.12 field layout.
    ZipEntryInfo entry;
    entry.flags = reader.u16(pos + 8);
    entry.method = reader.u16(pos + 10);
    entry.crc32 = reader.u32(pos + 16);
    const std::uint32_t csize = reader.u32(pos + 20);
    const std::uint32_t usize = reader.u32(pos + 24);
    const std::size_t name_length = reader.u16(pos + 28);
    const std::size_t extra_length = reader.u16(pos + 30);
    const std::size_t comment_length = reader.u16(pos + 32);
    const std::uint32_t offset = reader.u32(pos + 42);
    const std::size_t variable = name_length + extra_length + comment_length;
    if (!reader.has(pos + k_central_header_size, variable))
      return fail(where, "name, extra field or comment runs past the central directory");
    entry.name = reader.text(pos + k_central_header_size, name_length);
    entry.compressed_size = csize;
    entry.uncompressed_size = usize;
    entry.local_header_offset = offset;
    if (auto error = apply_zip64_extra(reader, pos + k_central_header_size + name_length,
                                       extra_length, entry, usize == 0xFFFFFFFF,
                                       csize == 0xFFFFFFFF, offset == 0xFFFFFFFF))
      return fail(entry.name, *error);
    entries.push_back(std::move(entry));
    pos += k_central_header_size + variable;
  }
  if (pos != bytes.size())
    return fail("zip central directory",
                std::to_string(bytes.size() - pos) + " bytes after its " + std::to_string(count) +
                    " entries: the end record's count and size disagree, and readers going by "
                    "the size would see other entries");
  return entries;
}

pep::Parsed<std::uint64_t> check_entry_ranges(std::span<const ZipEntryInfo> entries,
                                              std::span<const std::uint64_t> local_header_lengths,
                                              std::uint64_t data_end) {
  if (entries.size() != local_header_lengths.size())
    return fail("zip entries", "one local header length per entry is needed");
  struct Range {
    std::uint64_t begin, end;
    std::size_t index;
  };
  std::vector<Range> ranges;
  ranges.reserve(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& entry = entries[i];
    const bool zip64 = entry.compressed_size >= 0xFFFFFFFF || entry.uncompressed_size >= 0xFFFFFFFF;
    const std::uint64_t descriptor = (entry.flags & 0x8) != 0 ? (zip64 ? 20 : 12) : 0;
    // Each term is below 2^64 but their sum need not be: anything past data_end is refused.
    const std::uint64_t begin = entry.local_header_offset;
    std::uint64_t length = local_header_lengths[i];
    for (const std::uint64_t part : {entry.compressed_size, descriptor}) {
      if (part > data_end || length > data_end - part) {
        length = std::numeric_limits<std::uint64_t>::max();
        break;
      }
      length += part;
    }
    if (begin > data_end || length > data_end - begin)
      return fail(entry.name, "its local header and data (offset " + std::to_string(begin) + ", " +
                                  std::to_string(length) +
                                  " bytes) run past the start of the central directory (" +
                                  std::to_string(data_end) + ")");
    ranges.push_back({begin, begin + length, i});
  }
  std::ranges::sort(ranges, {}, &Range::begin);
  std::uint64_t covered = 0;
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    if (i > 0 && ranges[i].begin < ranges[i - 1].end)
      return fail(entries[ranges[i].index].name,
                  "overlaps '" + entries[ranges[i - 1].index].name + "' (bytes " +
                      std::to_string(ranges[i].begin) + " to " +
                      std::to_string(std::min(ranges[i].end, ranges[i - 1].end)) +
                      " belong to both): overlapping entries, the trick of zip bombs that "
                      "inflate many entries from the same bytes");
    covered += ranges[i].end - ranges[i].begin;
  }
  return covered;
}

pep::Parsed<std::uint64_t> local_header_length(std::span<const std::uint8_t> bytes) {
  const Reader reader(bytes);
  if (!reader.has(0, k_local_header_size))
    return fail("zip local header",
                "truncated: " + std::to_string(bytes.size()) + " bytes, the fixed part needs 30");
  if (reader.u32(0) != k_local_header_signature) return fail("zip local header", "bad signature");
  // §4.3.7: fixed part, then file name (length at 26) and extra field (28).
  return k_local_header_size + std::uint64_t{reader.u16(26)} + reader.u16(28);
}

namespace {

pep::Parsed<std::string> inflate_raw(const ZipEntryInfo& entry,
                                     std::span<const std::uint8_t> input) {
  std::string out(static_cast<std::size_t>(entry.uncompressed_size), '\0');
  z_stream stream{};
  // Negative window bits: raw deflate without zlib header (§4.4.5 method 8).
  if (inflateInit2(&stream, -MAX_WBITS) != Z_OK) return fail(entry.name, "cannot initialise zlib");
  constexpr std::size_t k_chunk = std::numeric_limits<uInt>::max();
  std::size_t in_pos = 0;
  int status = Z_OK;
  unsigned char spare = 0;  // one byte past the end catches output beyond the stated size
  while (status == Z_OK) {
    if (stream.avail_in == 0 && in_pos < input.size()) {
      const std::size_t n = std::min(k_chunk, input.size() - in_pos);
      // zlib's API takes non-const input it never writes to.
      stream.next_in = const_cast<Bytef*>(input.data() + in_pos);
      stream.avail_in = static_cast<uInt>(n);
      in_pos += n;
    }
    if (stream.avail_out == 0) {
      if (stream.total_out < out.size()) {
        const std::size_t n = std::min(k_chunk, out.size() - stream.total_out);
        stream.next_out = reinterpret_cast<Bytef*>(out.data() + stream.total_out);
        stream.avail_out = static_cast<uInt>(n);
      } else {
        stream.next_out = &spare;
        stream.avail_out = 1;
      }
    }
    status = inflate(&stream, Z_NO_FLUSH);
    if (stream.total_out > out.size()) break;  // more than stated: stop at once
    if (status == Z_BUF_ERROR && stream.avail_in == 0 && in_pos == input.size()) break;
    if (status == Z_BUF_ERROR) status = Z_OK;  // no progress possible this round; refill
  }
  const std::uint64_t produced = stream.total_out;
  inflateEnd(&stream);
  if (produced > entry.uncompressed_size)
    return fail(entry.name, "inflates to more than the stated " +
                                std::to_string(entry.uncompressed_size) + " bytes");
  if (status != Z_STREAM_END)
    return fail(entry.name, status == Z_DATA_ERROR ? "corrupt deflate data"
                                                   : "deflate data ends early (truncated)");
  if (produced != entry.uncompressed_size)
    return fail(entry.name, "inflates to " + std::to_string(produced) + " bytes, the header says " +
                                std::to_string(entry.uncompressed_size));
  return out;
}

}  // namespace

pep::Parsed<std::string> extract_entry_data(const ZipEntryInfo& entry,
                                            std::span<const std::uint8_t> data) {
  if (entry.uncompressed_size > k_max_entry_size)
    return fail(entry.name, "entry of " + std::to_string(entry.uncompressed_size) +
                                " bytes is over the limit of " + std::to_string(k_max_entry_size) +
                                " bytes");
  if (entry.compressed_size > data.size())
    return fail(entry.name, "truncated: " + std::to_string(data.size()) + " bytes of " +
                                std::to_string(entry.compressed_size));
  const auto input = data.first(static_cast<std::size_t>(entry.compressed_size));
  pep::Parsed<std::string> text;
  if (entry.method == 0) {  // §4.4.5: stored
    if (entry.compressed_size != entry.uncompressed_size)
      return fail(entry.name, "stored entry with different compressed and uncompressed sizes");
    text = std::string(input.begin(), input.end());
  } else if (entry.method == 8) {
    text = inflate_raw(entry, input);
    if (!text) return text;
  } else {
    return fail(entry.name, "compression method " + std::to_string(entry.method) +
                                " is not supported (only stored and deflate)");
  }
  // §4.4.7: CRC-32 of the uncompressed data.
  uLong crc = crc32(0L, Z_NULL, 0);
  for (std::size_t pos = 0; pos < text->size();) {
    const std::size_t n =
        std::min<std::size_t>(std::numeric_limits<uInt>::max(), text->size() - pos);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(text->data() + pos), static_cast<uInt>(n));
    pos += n;
  }
  if (crc != entry.crc32)
    return fail(entry.name, "CRC-32 mismatch: the central directory says " +
                                crc32_text(entry.crc32) + ", the data has " +
                                crc32_text(static_cast<std::uint32_t>(crc)));
  return text;
}

std::string crc32_text(std::uint32_t crc) {
  char text[11];
  std::snprintf(text, sizeof text, "0x%08x", crc);
  return text;
}

}  // namespace wheelmod::wheel
