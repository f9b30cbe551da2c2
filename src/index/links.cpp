// index::Links: a page's links in one text buffer, a record per link, an
// open-addressing index by URL for the duplicate-file rule.
#include <algorithm>
#include <functional>
#include <string>
#include <utility>

#include "index/page.hpp"

namespace wheelmod::index {

namespace {

std::string merge_message(const Link& link, std::string_view what, const FileHash& first,
                          const FileHash& second) {
  return link.filename + " is listed twice with different " + std::string(what) + " " +
         first.algorithm + " digests: " + first.hex + " and " + second.hex + " (" + link.url + ")";
}

// The upper 32 bits of std::hash, kept in the index so that a probe or a
// rehash seldom reads the URL itself.
std::uint32_t url_hash(std::string_view url) {
  return static_cast<std::uint32_t>(std::hash<std::string_view>{}(url) >> 32U);
}

}  // namespace

Link Links::operator[](std::size_t i) const {
  const Record& record = m_records[i];
  Link link;
  link.filename = std::string(text(record.filename));
  link.url = std::string(text(record.url));
  if (record.extra == k_absent) return link;
  const Extra& extra = m_extras[record.extra];
  link.hashes.reserve(extra.hash_count);
  for (std::uint32_t h = extra.hashes; h < extra.hashes + extra.hash_count; ++h) {
    link.hashes.push_back(
        {std::string(text(m_hashes[h].algorithm)), std::string(text(m_hashes[h].hex))});
  }
  link.requires_python = optional_text(extra.requires_python);
  link.yanked = optional_text(extra.yanked);
  link.upload_time = optional_text(extra.upload_time);
  link.has_core_metadata = extra.has_core_metadata;
  if (extra.core_metadata_hash.hex.size != k_absent) {
    link.core_metadata_hash = FileHash{std::string(text(extra.core_metadata_hash.algorithm)),
                                       std::string(text(extra.core_metadata_hash.hex))};
  }
  if (extra.has_size) link.size = extra.size;
  return link;
}

std::string_view Links::filename(std::size_t i) const { return text(m_records[i].filename); }
std::string_view Links::url(std::size_t i) const { return text(m_records[i].url); }

std::optional<std::string> Links::optional_text(Text t) const {
  if (t.size == k_absent) return std::nullopt;
  return std::string(text(t));
}

void Links::reserve(std::size_t links, std::size_t text) {
  m_records.reserve(links);
  m_text.reserve(text);
}

std::expected<Links::Text, std::string> Links::store_text(std::string_view value) {
  // Offsets are 32 bits: 4 GiB of link text is far beyond any index page (they are capped at
  // 256 MiB), but a long <base href> repeated for every link could get there.
  if (m_text.size() + value.size() >= k_absent) {
    return std::unexpected("the page's links take more than 4 GiB of text");
  }
  const Text out{static_cast<std::uint32_t>(m_text.size()),
                 static_cast<std::uint32_t>(value.size())};
  m_text.append(value);
  return out;
}

std::expected<Links::Text, std::string> Links::store_optional(
    const std::optional<std::string>& value) {
  if (!value) return Text{};
  return store_text(*value);
}

std::expected<Links::HashText, std::string> Links::store_hash(const FileHash& hash) {
  HashText out;
  // Algorithm names repeat on every link: each is stored once.
  const auto known = std::find_if(m_algorithms.begin(), m_algorithms.end(),
                                  [&](Text t) { return text(t) == hash.algorithm; });
  if (known != m_algorithms.end()) {
    out.algorithm = *known;
  } else {
    auto algorithm = store_text(hash.algorithm);
    if (!algorithm) return std::unexpected(algorithm.error());
    out.algorithm = *algorithm;
    m_algorithms.push_back(*algorithm);
  }
  auto hex = store_text(hash.hex);
  if (!hex) return std::unexpected(hex.error());
  out.hex = *hex;
  return out;
}

std::expected<void, std::string> Links::store_extra(Record& record, const Link& link) {
  const bool needed = !link.hashes.empty() || link.requires_python || link.yanked ||
                      link.upload_time || link.has_core_metadata || link.core_metadata_hash ||
                      link.size;
  if (!needed) return {};
  Extra extra;
  extra.hashes = static_cast<std::uint32_t>(m_hashes.size());
  for (const FileHash& hash : link.hashes) {
    auto stored = store_hash(hash);
    if (!stored) return std::unexpected(stored.error());
    m_hashes.push_back(*stored);
    ++extra.hash_count;
  }
  for (auto [field, value] :
       {std::pair{&extra.requires_python, &link.requires_python},
        std::pair{&extra.yanked, &link.yanked}, std::pair{&extra.upload_time, &link.upload_time}}) {
    auto stored = store_optional(*value);
    if (!stored) return std::unexpected(stored.error());
    *field = *stored;
  }
  if (link.core_metadata_hash) {
    auto stored = store_hash(*link.core_metadata_hash);
    if (!stored) return std::unexpected(stored.error());
    extra.core_metadata_hash = *stored;
  }
  extra.has_core_metadata = link.has_core_metadata;
  extra.has_size = link.size.has_value();
  extra.size = link.size.value_or(0);
  if (record.extra == k_absent) {
    record.extra = static_cast<std::uint32_t>(m_extras.size());
    m_extras.push_back(extra);
  } else {
    m_extras[record.extra] = extra;  // a merge: the old text stays, unused
  }
  return {};
}

std::expected<void, std::string> Links::add(const Link& link) {
  if (m_index.empty()) m_index.resize(64);
  const std::uint32_t hash = url_hash(link.url);
  const std::size_t mask = m_index.size() - 1;
  std::size_t slot = hash & mask;
  for (; m_index[slot].record != k_absent; slot = (slot + 1) & mask) {
    if (m_index[slot].hash == hash && url(m_index[slot].record) == link.url) {
      return merge(m_index[slot].record, link);
    }
  }
  Record record;
  auto url = store_text(link.url);
  if (!url) return std::unexpected(url.error());
  record.url = *url;
  // The file name is most often the URL's last path segment as written: then it is not stored
  // twice.
  const std::string_view path = text(record.url).substr(0, link.url.find('?'));
  if (path.ends_with(link.filename) && path.size() > link.filename.size() &&
      path[path.size() - link.filename.size() - 1] == '/') {
    record.filename = {
        static_cast<std::uint32_t>(record.url.at + path.size() - link.filename.size()),
        static_cast<std::uint32_t>(link.filename.size())};
  } else {
    auto filename = store_text(link.filename);
    if (!filename) return std::unexpected(filename.error());
    record.filename = *filename;
  }
  if (auto extra = store_extra(record, link); !extra) return extra;
  m_index[slot] = {static_cast<std::uint32_t>(m_records.size()), hash};
  m_records.push_back(record);
  if (m_records.size() * 4 > m_index.size() * 3) grow_index();
  return {};
}

void Links::grow_index() {
  std::vector<Slot> bigger(m_index.size() * 2);
  const std::size_t mask = bigger.size() - 1;
  for (const Slot& slot : m_index) {
    if (slot.record == k_absent) continue;
    std::size_t at = slot.hash & mask;
    while (bigger[at].record != k_absent) at = (at + 1) & mask;
    bigger[at] = slot;
  }
  m_index = std::move(bigger);
}

std::expected<void, std::string> Links::merge(std::size_t i, const Link& link) {
  // A file is its URL. The real index has listed one file twice: harmless
  // when the entries agree, but one URL with two digests leaves no safe
  // choice. One name under two URLs is two files: the prefix-root page
  // /whl/<project>/ lists e.g. the cpu and the cu126 builds of
  // torchaudio-2.6.0-cp312-cp312-linux_aarch64.whl.
  Link first = (*this)[i];
  for (const FileHash& hash : link.hashes) {
    const auto same =
        std::find_if(first.hashes.begin(), first.hashes.end(),
                     [&](const FileHash& h) { return h.algorithm == hash.algorithm; });
    if (same == first.hashes.end()) {
      first.hashes.push_back(hash);
    } else if (same->hex != hash.hex) {
      return std::unexpected(merge_message(first, "file", *same, hash));
    }
  }
  if (first.core_metadata_hash && link.core_metadata_hash &&
      first.core_metadata_hash->algorithm == link.core_metadata_hash->algorithm &&
      first.core_metadata_hash->hex != link.core_metadata_hash->hex) {
    return std::unexpected(
        merge_message(first, "core metadata", *first.core_metadata_hash, *link.core_metadata_hash));
  }
  first.has_core_metadata = first.has_core_metadata || link.has_core_metadata;
  if (!first.core_metadata_hash) first.core_metadata_hash = link.core_metadata_hash;
  if (!first.requires_python) first.requires_python = link.requires_python;
  if (!first.yanked) first.yanked = link.yanked;
  if (!first.size) first.size = link.size;
  if (!first.upload_time) first.upload_time = link.upload_time;
  return store_extra(m_records[i], first);
}

}  // namespace wheelmod::index
