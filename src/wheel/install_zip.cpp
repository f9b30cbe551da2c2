#include "install_zip.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zip.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "core/errors.hpp"
#include "wheel/installer.hpp"
#include "wheel/zip_directory.hpp"

namespace wheelmod::wheel {

namespace {

std::string describe(int zip_code, int system_code) {
  zip_error_t error;
  zip_error_init(&error);
  zip_error_set(&error, zip_code, system_code);
  std::string text = zip_error_strerror(&error);
  zip_error_fini(&error);
  return text;
}

// Data that cannot be decoded is the archive's fault (exit 5); a failed
// read(2) is the file system's (exit 4).
[[noreturn]] void throw_read_error(const zip_error_t* error, const std::string& archive,
                                   const std::string& member) {
  const int code = zip_error_code_zip(error);
  const std::string text = describe(code, zip_error_code_system(error));
  const std::string cause = "entry '" + member + "': " + text;
  if (code == ZIP_ER_READ || code == ZIP_ER_SEEK || code == ZIP_ER_MEMORY) {
    throw IoError(archive, cause);
  }
  throw IntegrityError(archive, cause, "the wheel is damaged; download it again");
}

// libzip says ZIP_ER_NOZIP both for a file that is no zip and for a zip
// whose end is cut off or whose directory records do not add up. A file
// that begins with a local file header (APPNOTE 4.3.7) is the second kind.
bool starts_like_a_zip(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char magic[4] = {};
  const bool zip = ::read(fd, magic, sizeof magic) == sizeof magic &&
                   std::memcmp(magic, "PK\x03\x04", sizeof magic) == 0;
  ::close(fd);
  return zip;
}

}  // namespace

ZipMemberReader::ZipMemberReader(zip_file* file, std::string archive, std::string member)
    : m_file(file), m_archive(std::move(archive)), m_member(std::move(member)) {}

ZipMemberReader::~ZipMemberReader() {
  if (m_file != nullptr) zip_fclose(m_file);
}

ZipMemberReader::ZipMemberReader(ZipMemberReader&& other) noexcept
    : m_file(std::exchange(other.m_file, nullptr)),
      m_archive(std::move(other.m_archive)),
      m_member(std::move(other.m_member)) {}

std::size_t ZipMemberReader::read(std::span<std::uint8_t> buffer) {
  const zip_int64_t got = zip_fread(m_file, buffer.data(), buffer.size());
  if (got < 0) throw_read_error(zip_file_get_error(m_file), m_archive, m_member);
  return static_cast<std::size_t>(got);
}

ZipArchive::ZipArchive(const std::filesystem::path& path, ZipCheck check) : m_path(path.string()) {
  int flags = ZIP_RDONLY;
  if (check == ZipCheck::local_headers) flags |= ZIP_CHECKCONS;
  int code = 0;
  m_zip = zip_open(m_path.c_str(), flags, &code);
  if (m_zip != nullptr) return;
  const int system_code = errno;
  switch (code) {
    case ZIP_ER_NOZIP:
      if (starts_like_a_zip(m_path))
        throw IntegrityError(m_path,
                             "damaged zip archive: no consistent central directory (the file "
                             "is truncated, or its directory records point past its end)",
                             "the wheel is damaged or was crafted; download it again");
      throw UsageError(m_path, "not a zip archive, so not a wheel");
    case ZIP_ER_OPEN:
    case ZIP_ER_READ:
    case ZIP_ER_SEEK:
    case ZIP_ER_NOENT:
    case ZIP_ER_MEMORY:
      throw IoError(m_path, "cannot open: " + describe(code, system_code));
    default:
      // ZIP_ER_INCONS, ZIP_ER_EXISTS (a name twice, under ZIP_CHECKCONS), ...
      throw IntegrityError(m_path,
                           "damaged or inconsistent zip archive: " + describe(code, 0) +
                               (check == ZipCheck::local_headers
                                    ? " (a local header disagrees with the central directory)"
                                    : ""),
                           "the wheel is damaged or was crafted; download it again");
  }
}

ZipArchive::~ZipArchive() {
  if (m_zip != nullptr) zip_discard(m_zip);  // read-only: nothing to write back
}

std::vector<ZipMember> ZipArchive::members() const {
  const zip_int64_t count = zip_get_num_entries(m_zip, 0);
  std::vector<ZipMember> out;
  out.reserve(static_cast<std::size_t>(count));
  for (zip_uint64_t index = 0; index < static_cast<zip_uint64_t>(count); ++index) {
    zip_stat_t st;
    zip_stat_init(&st);
    // Raw bytes: libzip's guess would turn a control character of a name
    // without the UTF-8 flag into a printable CP437 glyph, hiding it.
    if (zip_stat_index(m_zip, index, ZIP_FL_ENC_RAW, &st) != 0) {
      throw IntegrityError(m_path, "unreadable central directory entry " + std::to_string(index) +
                                       ": " + zip_strerror(m_zip));
    }
    constexpr zip_uint64_t k_needed = ZIP_STAT_NAME | ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE;
    if ((st.valid & k_needed) != k_needed) {
      throw IntegrityError(
          m_path, "central directory entry " + std::to_string(index) + " lacks its name or sizes");
    }
    ZipMember member;
    member.index = index;
    member.name = st.name;
    member.size = st.size;
    member.compressed_size = st.comp_size;
    member.encrypted =
        (st.valid & ZIP_STAT_ENCRYPTION_METHOD) != 0 && st.encryption_method != ZIP_EM_NONE;
    zip_uint8_t opsys = 0;
    zip_uint32_t attributes = 0;
    if (zip_file_get_external_attributes(m_zip, index, 0, &opsys, &attributes) == 0 &&
        opsys == ZIP_OPSYS_UNIX) {
      member.unix_mode = attributes >> 16;  // APPNOTE 4.4.15: high word is st_mode
    }
    out.push_back(std::move(member));
  }
  return out;
}

ZipMemberReader ZipArchive::open(std::uint64_t index, const std::string& name) const {
  zip_file_t* file = zip_fopen_index(m_zip, index, 0);
  if (file == nullptr) throw_read_error(zip_get_error(m_zip), m_path, name);
  return ZipMemberReader(file, m_path, name);
}

std::string ZipArchive::read_all(std::uint64_t index, const std::string& name,
                                 std::uint64_t limit) const {
  auto reader = open(index, name);
  std::string out;
  std::uint8_t buffer[64 * 1024];
  while (const std::size_t got = reader.read(buffer)) {
    if (out.size() + got > limit) {
      throw IntegrityError(m_path, "entry '" + name + "' is larger than " + std::to_string(limit) +
                                       " bytes, too large for metadata");
    }
    out.append(reinterpret_cast<const char*>(buffer), got);
  }
  return out;
}

struct RawEntryReader::Stream {
  z_stream z{};
};

RawEntryReader::RawEntryReader(int fd, const EntryData& data, std::string archive,
                               std::string member, std::vector<std::uint8_t>& input)
    : m_fd(fd),
      m_data(data),
      m_archive(std::move(archive)),
      m_member(std::move(member)),
      m_input(input),
      m_crc(static_cast<std::uint32_t>(crc32(0L, Z_NULL, 0))) {
  if (m_data.method == 8) {
    m_stream = std::make_unique<Stream>();
    // Raw deflate, no zlib header (APPNOTE 4.4.5, method 8); -MAX_WBITS says so.
    if (inflateInit2(&m_stream->z, -MAX_WBITS) != Z_OK) {
      m_stream.reset();
      throw IoError(m_archive, "entry '" + m_member + "': cannot initialise zlib");
    }
  }
}

RawEntryReader::~RawEntryReader() {
  if (m_stream) inflateEnd(&m_stream->z);
}

void RawEntryReader::damaged(const std::string& why) const {
  throw IntegrityError(m_archive, "entry '" + m_member + "': " + why,
                       "the wheel is damaged; download it again");
}

std::size_t RawEntryReader::read_compressed(std::uint8_t* into, std::size_t size) {
  const auto wanted =
      static_cast<std::size_t>(std::min<std::uint64_t>(size, m_data.compressed_size - m_consumed));
  std::size_t done = 0;
  while (done < wanted) {
    const ssize_t got = ::pread(m_fd, into + done, wanted - done,
                                static_cast<off_t>(m_data.offset + m_consumed + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0)
      throw IoError(m_archive, "entry '" + m_member + "': cannot read: " + std::strerror(errno));
    if (got == 0) throw IoError(m_archive, "the file shrank while it was read");
    done += static_cast<std::size_t>(got);
  }
  m_consumed += done;
  return done;
}

std::size_t RawEntryReader::read(std::span<std::uint8_t> buffer) {
  std::size_t produced = 0;
  if (m_data.method == 0) {
    produced = read_compressed(buffer.data(), buffer.size());
  } else if (!m_ended) {
    auto& z = m_stream->z;
    z.next_out = buffer.data();
    z.avail_out = static_cast<uInt>(std::min<std::size_t>(buffer.size(), 1U << 30));
    while (z.avail_out > 0 && !m_ended) {
      if (z.avail_in == 0 && m_consumed < m_data.compressed_size) {
        z.next_in = m_input.data();
        z.avail_in = static_cast<uInt>(read_compressed(m_input.data(), m_input.size()));
      }
      const auto before = z.avail_out;
      const int status = inflate(&z, Z_NO_FLUSH);
      if (status == Z_STREAM_END) {
        m_ended = true;
      } else if (status == Z_BUF_ERROR ||
                 (status == Z_OK && z.avail_out == before && z.avail_in == 0 &&
                  m_consumed == m_data.compressed_size)) {
        damaged("the deflate data ends before its stream does (cut short)");
      } else if (status != Z_OK) {
        damaged(std::string("damaged deflate data (zlib: ") +
                (z.msg != nullptr ? z.msg : "error " + std::to_string(status)) + ")");
      }
    }
    // Bytes after the end of the stream, inside the compressed size, are ignored, as libzip and
    // zipfile ignore them: the content is the same for every reader.
    produced = buffer.size() - z.avail_out;
  }
  if (produced > 0) {
    m_crc = static_cast<std::uint32_t>(crc32_z(m_crc, buffer.data(), produced));
    return produced;
  }
  if (m_crc != m_data.crc32)
    damaged("CRC-32 mismatch: the central directory says " + crc32_text(m_data.crc32) +
            ", the data has " + crc32_text(m_crc));
  return 0;
}

std::string zip_library_version() { return zip_libzip_version(); }

}  // namespace wheelmod::wheel
