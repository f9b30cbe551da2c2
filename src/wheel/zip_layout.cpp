#include "zip_layout.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include <sys/stat.h>

#include "core/errors.hpp"
#include "core/unique_fd.hpp"
#include "wheel/zip_directory.hpp"

namespace wheelmod::wheel {

namespace {

// The end record with the longest comment, and the ZIP64 locator and record before it
// (APPNOTE §4.3.14-16).
constexpr std::uint64_t k_tail_bytes = 0xFFFF + 22 + 20 + 56;
constexpr std::uint64_t k_local_header_fixed = 30;  // §4.3.7

constexpr std::string_view k_hint =
    "refusing to install it: the wheel is damaged or was crafted so that zip readers disagree "
    "on its contents, or to inflate more than it holds";

class ArchiveFile {
 public:
  explicit ArchiveFile(const std::filesystem::path& path) : m_path(path.string()) {
    m_fd = UniqueFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    struct stat status {};
    if (!m_fd || ::fstat(m_fd.get(), &status) != 0)
      throw IoError(m_path, std::string("cannot open: ") + std::strerror(errno));
    m_size = static_cast<std::uint64_t>(status.st_size);
  }

  [[nodiscard]] std::uint64_t size() const { return m_size; }

  // `length` bytes at `offset`, which the caller has checked lie inside the file.
  std::vector<std::uint8_t> read(std::uint64_t offset, std::uint64_t length) const {
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(length));
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t got = ::pread(m_fd.get(), bytes.data() + done, bytes.size() - done,
                                  static_cast<off_t>(offset + done));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw IoError(m_path, std::string("cannot read: ") + std::strerror(errno));
      if (got == 0) throw IoError(m_path, "the file shrank while it was read");
      done += static_cast<std::size_t>(got);
    }
    return bytes;
  }

 private:
  std::string m_path;
  UniqueFd m_fd;
  std::uint64_t m_size = 0;
};

[[noreturn]] void refuse(const std::string& archive, const std::string& why) {
  throw IntegrityError(archive, why, std::string(k_hint));
}

template <typename T>
T value_or_refuse(pep::Parsed<T> parsed, const std::string& archive) {
  if (!parsed) refuse(archive, parsed.error().input + ": " + parsed.error().message);
  return std::move(*parsed);
}

}  // namespace

std::optional<std::vector<ZipEntryInfo>> read_zip_layout(const std::filesystem::path& path) {
  const std::string archive = path.string();
  const ArchiveFile file(path);
  const auto tail_length = std::min(file.size(), k_tail_bytes);
  const auto tail = file.read(file.size() - tail_length, tail_length);
  constexpr std::string_view k_end_signature = "PK\x05\x06";  // §4.3.16
  if (std::string_view(reinterpret_cast<const char*>(tail.data()), tail.size())
          .find(k_end_signature) == std::string_view::npos)
    return std::nullopt;
  const auto directory = value_or_refuse(find_central_directory(tail, file.size()), archive);
  // find_central_directory has checked that the directory ends inside the file.
  auto entries = value_or_refuse(
      parse_central_directory(file.read(directory.offset, directory.size), directory.entries),
      archive);

  std::vector<std::uint64_t> header_lengths;
  header_lengths.reserve(entries.size());
  for (const auto& entry : entries) {
    if (entry.local_header_offset > directory.offset ||
        directory.offset - entry.local_header_offset < k_local_header_fixed)
      refuse(archive, "entry '" + entry.name + "': its local header (offset " +
                          std::to_string(entry.local_header_offset) +
                          ") is not before the central directory");
    const auto fixed = file.read(entry.local_header_offset, k_local_header_fixed);
    header_lengths.push_back(value_or_refuse(local_header_length(fixed), archive));
  }
  value_or_refuse(check_entry_ranges(entries, header_lengths, directory.offset), archive);
  for (std::size_t i = 0; i < entries.size(); ++i)
    entries[i].data_offset = entries[i].local_header_offset + header_lengths[i];
  return entries;
}

void check_same_entries(const std::filesystem::path& path, const std::vector<ZipEntryInfo>& entries,
                        const std::vector<ZipMember>& members) {
  const std::string archive = path.string();
  if (entries.size() != members.size())
    refuse(archive, "libzip lists " + std::to_string(members.size()) +
                        " entries, the central directory holds " + std::to_string(entries.size()));
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (entries[i].name != members[i].name ||
        entries[i].compressed_size != members[i].compressed_size ||
        entries[i].uncompressed_size != members[i].size)
      refuse(archive, "entry " + std::to_string(i) + " reads as '" + entries[i].name +
                          "' here and as '" + members[i].name + "' to libzip");
}

}  // namespace wheelmod::wheel
