// A wheel's METADATA with as few bytes as possible, in uv's order
// (uv-client registry_client.rs, wheel_metadata): the PEP 658 `.metadata` file; else HTTP range
// requests for the zip's end record, central directory and the METADATA entry alone; else the whole
// wheel, read from memory by the same zip code.
#include "index_client/metadata_source.hpp"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <span>
#include <stdexcept>
#include <utility>

#include "core/errors.hpp"
#include "core/strings.hpp"
#include "core/url.hpp"
#include "hash/sha256.hpp"
#include "pep/name.hpp"
#include "pep/wheel_filename.hpp"
#include "wheel/zip_directory.hpp"

namespace wheelmod::index_client {

namespace {

// First suffix request: the end record (22 bytes; wheels carry no zip
// comment) and, for most small wheels, the central directory and METADATA
// too. Only a long comment needs more: the end record with the longest
// comment (64 KiB + 22, APPNOTE §4.3.16) and the ZIP64 locator and record
// before it (20 + 56, §4.3.14-15).
constexpr std::uint64_t k_first_tail = 8 * 1024;
constexpr std::uint64_t k_full_tail = 64 * 1024 + 22 + 20 + 56;
// Local extra fields may differ from the central ones; this margin usually
// covers them, so header and data come in one request.
constexpr std::uint64_t k_local_extra_margin = 256;
// A central directory this large is not a wheel's (torch's is ~1 MiB).
constexpr std::uint64_t k_max_central_directory = 64ULL * 1024 * 1024;

/// Range reading went wrong in a way the whole wheel may not (a lying
/// server, a file changed between requests): fall back to it.
struct RangeProblem : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::span<const std::uint8_t> as_bytes(std::string_view text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

std::string sha256_hex(std::string_view bytes) {
  hash::Sha256 hasher;
  hasher.update(bytes);
  return hash::to_hex(hasher.finish());
}

// The archive bytes held so far: windows of the file, fetched on demand.
class ArchiveBytes {
 public:
  using Fetch = std::function<std::string(std::uint64_t offset, std::uint64_t length)>;

  ArchiveBytes(std::uint64_t size, std::string tail, Fetch fetch)
      : m_size(size), m_fetch(std::move(fetch)) {
    m_windows.push_back(Window{size - tail.size(), std::move(tail)});
  }

  [[nodiscard]] std::uint64_t size() const { return m_size; }
  [[nodiscard]] std::span<const std::uint8_t> tail() const {
    return as_bytes(m_windows.front().bytes);
  }

  /// Replaces the tail with the last `length` bytes.
  void widen_tail(std::uint64_t length) {
    length = std::min(length, m_size);
    m_windows.front() = Window{m_size - length, m_fetch(m_size - length, length)};
  }

  /// Bytes [offset, offset + length), clipped to the archive's end.
  std::span<const std::uint8_t> read(std::uint64_t offset, std::uint64_t length) {
    if (offset > m_size)
      throw RangeProblem("offset " + std::to_string(offset) + " is past the end");
    length = std::min(length, m_size - offset);
    for (const auto& window : m_windows)
      if (offset >= window.start && offset + length <= window.start + window.bytes.size())
        return as_bytes(window.bytes)
            .subspan(static_cast<std::size_t>(offset - window.start),
                     static_cast<std::size_t>(length));
    // A deque never moves its elements, so spans handed out stay valid.
    m_windows.push_back(Window{offset, m_fetch(offset, length)});
    return as_bytes(m_windows.back().bytes);
  }

 private:
  struct Window {
    std::uint64_t start = 0;
    std::string bytes;
  };
  std::uint64_t m_size;
  Fetch m_fetch;
  std::deque<Window> m_windows;
};

[[noreturn]] void corrupt(const std::string& subject, const std::string& cause) {
  throw IntegrityError(subject, "not a valid wheel: " + cause,
                       "the file is damaged or not a wheel; report it to the index's operators");
}

template <class T>
T value_or_problem(pep::Parsed<T> parsed) {
  if (!parsed) throw RangeProblem(parsed.error().input + ": " + parsed.error().message);
  return std::move(*parsed);
}

// The wheel spec (PEP 427 "File contents") puts METADATA in
// `{distribution}-{version}.dist-info/` at the archive root. Normally there
// is exactly one; when there are several, the one of this distribution.
const wheel::ZipEntryInfo& select_metadata(const std::vector<wheel::ZipEntryInfo>& entries,
                                           std::string_view distribution,
                                           const std::string& subject) {
  std::vector<const wheel::ZipEntryInfo*> found;
  for (const auto& entry : entries) {
    const std::string_view name = entry.name;
    constexpr std::string_view k_suffix = ".dist-info/METADATA";
    if (name.ends_with(k_suffix) && name.find('/') == name.size() - 9 &&
        name.size() > k_suffix.size())
      found.push_back(&entry);
  }
  if (found.empty()) corrupt(subject, "it has no *.dist-info/METADATA");
  if (found.size() == 1) return *found.front();
  const std::string wanted = pep::canonicalize_name(distribution);
  std::vector<const wheel::ZipEntryInfo*> matching;
  for (const auto* entry : found) {
    const std::string_view dir = std::string_view(entry->name).substr(0, entry->name.find('-'));
    if (pep::canonicalize_name(dir) == wanted) matching.push_back(entry);
  }
  if (matching.size() != 1)
    corrupt(subject, std::to_string(found.size()) + " *.dist-info/METADATA files and " +
                         std::to_string(matching.size()) + " of them for '" +
                         std::string(distribution) + "'");
  return *matching.front();
}

// APPNOTE §4.3.6: [local header + data]... central directory, end record.
// Zip structure problems throw RangeProblem.
std::vector<wheel::ZipEntryInfo> read_entries(ArchiveBytes& archive) {
  auto location = wheel::find_central_directory(archive.tail(), archive.size());
  if (!location && archive.tail().size() < std::min(archive.size(), k_full_tail)) {
    archive.widen_tail(k_full_tail);
    location = wheel::find_central_directory(archive.tail(), archive.size());
  }
  const auto cd = value_or_problem(std::move(location));
  if (cd.size > k_max_central_directory)
    throw RangeProblem("central directory of " + std::to_string(cd.size) + " bytes");
  return value_or_problem(
      wheel::parse_central_directory(archive.read(cd.offset, cd.size), cd.entries));
}

// A missing METADATA throws IntegrityError (the central directory is authoritative).
std::string read_metadata(ArchiveBytes& archive, std::string_view distribution,
                          const std::string& subject) {
  const auto entries = read_entries(archive);
  const auto& entry = select_metadata(entries, distribution, subject);
  const std::uint64_t guess = 30 + entry.name.size() + k_local_extra_margin + entry.compressed_size;
  auto bytes = archive.read(entry.local_header_offset, guess);
  const auto header = value_or_problem(wheel::local_header_length(bytes));
  auto data = header <= bytes.size() ? bytes.subspan(static_cast<std::size_t>(header))
                                     : std::span<const std::uint8_t>();
  if (data.size() < entry.compressed_size)
    data = archive.read(entry.local_header_offset + header, entry.compressed_size);
  return value_or_problem(wheel::extract_entry_data(entry, data));
}

std::string distribution_of(const index::Link& link) {
  if (const auto name = pep::WheelFilename::parse(link.filename)) return name->distribution;
  return link.filename.substr(0, link.filename.find('-'));
}

/// Thrown by fetch_pep658 when the file does not match the page's hash: the caller reads the
/// wheel instead.
struct MetadataMismatch {
  std::string expected;
  std::string computed;
};

std::optional<std::string> fetch_pep658(net::Fetcher& fetcher, const index::Link& link) {
  const std::string url = link.core_metadata_url();
  // Through the page cache: the file never changes (the page pins its
  // hash), so a second resolve revalidates it (304) instead of reading it
  // again. Missing although the page announced it: the caller falls back.
  auto response = fetcher.get_page(url, "*/*");
  if (!response) return std::nullopt;
  // PEP 658: the attribute's value is the hash of the .metadata file. Only
  // sha256 is checked (the only one indexes use for it in practice).
  if (link.core_metadata_hash && link.core_metadata_hash->algorithm == "sha256") {
    const std::string computed = sha256_hex(response->body);
    if (computed != link.core_metadata_hash->hex)
      throw MetadataMismatch{link.core_metadata_hash->hex, computed};
  }
  return std::move(response->body);
}

/// nullopt when the server ignores Range (the fetcher then holds the whole
/// body for the get() that follows).
/// Calls `read` on the wheel's bytes held by range requests; nullopt when the server ignores
/// Range (the fetcher then holds the whole body for the get() that follows).
template <class Read>
auto by_ranges(net::Fetcher& fetcher, const index::Link& link, Read read)
    -> std::optional<decltype(read(std::declval<ArchiveBytes&>()))> {
  net::Response first = fetcher.get_range(link.url, -static_cast<std::int64_t>(k_first_tail), 0);
  if (first.status == 200) return std::nullopt;
  const std::uint64_t size = first.total_size.value_or(first.body.size());
  if (first.body.size() > size) throw RangeProblem("more bytes than the file's size");
  ArchiveBytes archive(
      size, std::move(first.body), [&](std::uint64_t offset, std::uint64_t length) {
        net::Response part = fetcher.get_range(link.url, static_cast<std::int64_t>(offset), length);
        if (part.body.size() != length || part.total_size != size)
          throw RangeProblem("the file changed between range requests");
        return std::move(part.body);
      });
  return read(archive);
}

/// Calls `read` on the whole wheel, once its sha256 matches the page's.
template <class Read>
auto from_whole_wheel(net::Fetcher& fetcher, const index::Link& link, const std::string& subject,
                      Read read) {
  net::Response whole = fetcher.get(link.url);
  // The whole file is here, so its hash can be checked before use.
  for (const auto& hash : link.hashes) {
    if (hash.algorithm != "sha256") continue;
    const std::string computed = sha256_hex(whole.body);
    if (computed != hash.hex) {
      IntegrityError error(subject, "hash mismatch",
                           "the download was corrupted or the index changed; run again");
      error.with_detail("expected sha256:" + hash.hex);
      error.with_detail("computed sha256:" + computed);
      throw error;
    }
  }
  const std::uint64_t size = whole.body.size();
  ArchiveBytes archive(
      size, std::move(whole.body),
      [](std::uint64_t, std::uint64_t) -> std::string { throw RangeProblem("outside the file"); });
  try {
    return read(archive);
  } catch (const RangeProblem& problem) {
    corrupt(subject, problem.what());
  }
}

/// `read` by range requests, else on the whole wheel: some servers and proxies fail range
/// requests outright (416, 501), and a lying one is caught by the zip checks.
template <class Read>
auto read_wheel(net::Fetcher& fetcher, const index::Link& link, const std::string& subject,
                Read read) {
  try {
    if (auto value = by_ranges(fetcher, link, read))
      return std::pair{std::move(*value), MetadataSource::range_requests};
  } catch (const RangeProblem&) {
    // Fall through: the whole wheel decides.
  } catch (const IoError&) {
    // Nor is a failed range request the end.
  }
  return std::pair{from_whole_wheel(fetcher, link, subject, read), MetadataSource::whole_wheel};
}

}  // namespace

std::string_view describe(MetadataSource source) {
  switch (source) {
    case MetadataSource::pep658:
      return "PEP 658 .metadata file";
    case MetadataSource::range_requests:
      return "range requests";
    case MetadataSource::whole_wheel:
      return "whole wheel";
  }
  return "unknown";
}

WheelMetadata fetch_wheel_metadata(net::Fetcher& fetcher, const index::Link& link) {
  std::optional<std::string> warning;
  if (link.has_core_metadata) {
    try {
      if (auto text = fetch_pep658(fetcher, link))
        return WheelMetadata{
            .text = std::move(*text), .source = MetadataSource::pep658, .warning = std::nullopt};
    } catch (const MetadataMismatch& mismatch) {
      // Not trusted, and not fatal: the wheel's own METADATA is authoritative (PEP 658 "the
      // metadata file ... MUST be identical to the distribution's METADATA") and is read below.
      warning = mask_credentials(link.core_metadata_url()) + ": sha256:" + mismatch.computed +
                ", the page says sha256:" + mismatch.expected +
                "; not trusted, the METADATA was read from the wheel itself";
    }
  }
  const std::string subject = mask_credentials(link.url);
  const auto read = [&](ArchiveBytes& archive) {
    return read_metadata(archive, distribution_of(link), subject);
  };
  auto [text, source] = read_wheel(fetcher, link, subject, read);
  return WheelMetadata{.text = std::move(text), .source = source, .warning = std::move(warning)};
}

std::vector<std::string> fetch_wheel_entry_names(net::Fetcher& fetcher, const index::Link& link) {
  const auto names = [](ArchiveBytes& archive) {
    std::vector<std::string> out;
    for (auto& entry : read_entries(archive)) out.push_back(std::move(entry.name));
    return out;
  };
  return read_wheel(fetcher, link, mask_credentials(link.url), names).first;
}

pep::CoreMetadata checked_metadata(const std::string& filename, std::string_view metadata_text) {
  const std::string shown = printable(filename);
  auto parsed = pep::CoreMetadata::parse(metadata_text);
  if (!parsed) throw IntegrityError(shown, "its METADATA is not valid: " + parsed.error().message);
  const auto name = pep::WheelFilename::parse(filename);
  if (name &&
      (pep::canonicalize_name(parsed->name) != name->name || parsed->version != name->version))
    throw IntegrityError(shown,
                         "its METADATA names " + printable(parsed->name) + " " +
                             parsed->version.str() + ", not the file name's project and version",
                         "the index serves a wrong or renamed file");
  return std::move(*parsed);
}

}  // namespace wheelmod::index_client
