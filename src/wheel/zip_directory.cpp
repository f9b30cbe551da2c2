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
// is searched backwards (§4.3.16). A candidate whose comment ends exactly
// at the end of the archive wins; a looser match (trailing bytes after the
// comment) is accepted only if no exact one exists, so a signature inside
// a comment does not fool the search.
std::optional<std::size_t> find_end_record(const Reader& reader, std::size_t size) {
  if (size < k_end_size) return std::nullopt;
  const std::size_t last = size - k_end_size;
  const std::size_t first = last > k_max_comment ? last - k_max_comment : 0;
  std::optional<std::size_t> loose;
  for (std::size_t pos = last + 1; pos-- > first;) {
    if (reader.u32(pos) != k_end_signature) continue;
    const std::size_t end = pos + k_end_size + reader.u16(pos + 20);
    if (end == size) return pos;
    if (end < size && !loose) loose = pos;
  }
  return loose;
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
  const std::uint64_t on_disk = reader.u64(pos + 24);
  const CentralDirectoryLocation location{.offset = reader.u64(pos + 48),
                                          .size = reader.u64(pos + 40),
                                          .entries = reader.u64(pos + 32)};
  if (on_disk != location.entries)
    return fail("zip64 end record", "split (multi-disk) archives are not supported");
  // The central directory ends where the ZIP64 end record begins.
  if (location.offset > record || location.size > record - location.offset)
    return fail("zip64 end record",
                "the central directory (offset " + std::to_string(location.offset) + ", size " +
                    std::to_string(location.size) + ") overlaps the end records");
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
  const auto end_pos = find_end_record(reader, tail.size());
  if (!end_pos)
    return fail("zip end record", "no end-of-central-directory record in the last " +
                                      std::to_string(tail.size()) +
                                      " bytes: not a zip archive, or truncated");
  const std::uint64_t tail_start = archive_size - tail.size();
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
  const std::uint64_t end_offset = tail_start + pos;
  if (offset > end_offset || size > end_offset - offset)
    return fail("zip end record", "the central directory (offset " + std::to_string(offset) +
                                      ", size " + std::to_string(size) +
                                      ") does not end before the end record at " +
                                      std::to_string(end_offset));
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
  return entries;
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

std::string hex32(std::uint32_t value) {
  char buffer[9];
  std::snprintf(buffer, sizeof buffer, "%08x", value);
  return buffer;
}

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
    return fail(entry.name, "CRC-32 mismatch: the central directory says " + hex32(entry.crc32) +
                                ", the data has " + hex32(static_cast<std::uint32_t>(crc)));
  return text;
}

}  // namespace wheelmod::wheel
