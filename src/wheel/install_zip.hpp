// A read-only libzip archive behind RAII, for the installer: the members'
// central-directory facts and a chunked reader per member. A zip_t is not
// safe to share between threads (libzip(3)), so each extracting thread
// opens its own ZipArchive. Errors name the archive and the member.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

struct zip;       // libzip's zip_t
struct zip_file;  // libzip's zip_file_t

namespace wheelmod::wheel {

struct ZipMember {
  std::uint64_t index = 0;
  /// As stored: the raw bytes, which RECORD must list (Python's zipfile,
  /// which builds wheels, writes UTF-8 and flags it).
  std::string name;
  std::uint64_t size = 0;  // uncompressed, from the central directory
  std::uint64_t compressed_size = 0;
  bool encrypted = false;
  /// st_mode from the external attributes when the member was made on a
  /// Unix host (APPNOTE 4.4.2 "version made by", 4.4.15).
  std::optional<std::uint32_t> unix_mode;
};

/// How much libzip checks when opening: `local_headers` also compares every
/// local header with its central directory entry (ZIP_CHECKCONS), which
/// catches archives that show one name to us and another to other tools.
enum class ZipCheck { central_directory, local_headers };

/// Reads one member in chunks; libzip inflates and checks the CRC-32.
class ZipMemberReader {
 public:
  ZipMemberReader(zip_file* file, std::string archive, std::string member);
  ~ZipMemberReader();
  ZipMemberReader(ZipMemberReader&&) noexcept;
  ZipMemberReader& operator=(ZipMemberReader&&) = delete;
  ZipMemberReader(const ZipMemberReader&) = delete;
  ZipMemberReader& operator=(const ZipMemberReader&) = delete;

  /// Fills up to `buffer.size()` bytes; 0 at the end. Throws IntegrityError
  /// for corrupt data or a CRC mismatch, IoError for a failed read.
  std::size_t read(std::span<std::uint8_t> buffer);

 private:
  zip_file* m_file;
  std::string m_archive;
  std::string m_member;
};

/// Where an entry's bytes lie, from wheelmod's own reading of the archive (read_zip_layout, which
/// has checked that they lie inside it and overlap no other entry's).
struct EntryData {
  std::uint16_t method = 0;  // 0 stored, 8 deflated (APPNOTE 4.4.5)
  std::uint32_t crc32 = 0;
  std::uint64_t compressed_size = 0;
  std::uint64_t offset = 0;  // of the first data byte
};

/// Reads one stored or deflated entry straight from the archive's file with pread(2) and zlib,
/// in large blocks: for a torch wheel that is ~600 reads instead of libzip's ~290,000 read and
/// lseek calls. The deflate stream must end exactly at the entry's compressed size and the bytes
/// must have the central directory's CRC-32, as libzip and Python's zipfile require.
class RawEntryReader {
 public:
  /// `input` is the caller's buffer for compressed bytes, reused from entry to entry.
  RawEntryReader(int fd, const EntryData& data, std::string archive, std::string member,
                 std::vector<std::uint8_t>& input);
  ~RawEntryReader();
  RawEntryReader(const RawEntryReader&) = delete;
  RawEntryReader& operator=(const RawEntryReader&) = delete;

  /// Same contract as ZipMemberReader::read.
  std::size_t read(std::span<std::uint8_t> buffer);

 private:
  struct Stream;
  std::size_t read_compressed(std::uint8_t* into, std::size_t size);
  [[noreturn]] void damaged(const std::string& why) const;

  int m_fd;
  EntryData m_data;
  std::string m_archive;
  std::string m_member;
  std::vector<std::uint8_t>& m_input;
  std::uint64_t m_consumed = 0;  // compressed bytes read from the file
  std::uint32_t m_crc = 0;
  bool m_ended = false;
  std::unique_ptr<Stream> m_stream;  // zlib's state, for deflated entries
};

class ZipArchive {
 public:
  /// Opens `path` read-only. Throws UsageError when it is not a zip,
  /// IntegrityError when it is inconsistent or cut short, IoError when it cannot be read.
  ZipArchive(const std::filesystem::path& path, ZipCheck check);
  ~ZipArchive();
  ZipArchive(const ZipArchive&) = delete;
  ZipArchive& operator=(const ZipArchive&) = delete;

  /// Every member in central-directory order.
  [[nodiscard]] std::vector<ZipMember> members() const;
  /// Member `index` for reading. `name` is only for messages.
  [[nodiscard]] ZipMemberReader open(std::uint64_t index, const std::string& name) const;
  /// The whole of a small member (WHEEL, METADATA, RECORD); IntegrityError
  /// when it inflates to more than `limit` bytes.
  [[nodiscard]] std::string read_all(std::uint64_t index, const std::string& name,
                                     std::uint64_t limit) const;

 private:
  zip* m_zip = nullptr;
  std::string m_path;
};

}  // namespace wheelmod::wheel
