// Index pages: PEP 503 "Simple Repository API" HTML and PEP 691 JSON, with the PEP 592 (yanked),
// PEP 658/714 (core metadata) and PEP 700 (size, upload time) additions. Pure parsers: text and
// the page's URL in, links out; fetching happens in src/net.
#pragma once

#include <cstddef>
#include <cstdint>
#include <expected>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pep/parse_error.hpp"

namespace wheelmod::index {

using pep::Parsed;
using pep::ParseError;

/// One hash of a file: algorithm ("sha256") and hex digest, both lower case.
struct FileHash {
  std::string algorithm;
  std::string hex;
  friend bool operator==(const FileHash&, const FileHash&) = default;
};

/// One file of a project page.
struct Link {
  std::string filename;          // percent-decoded last path segment (`torch-2.6.0+cu126-…whl`)
  std::string url;               // absolute (RFC 3986 against the page URL), fragment removed
  std::vector<FileHash> hashes;  // from `#sha256=` or the JSON `hashes`
  std::optional<std::string> requires_python;  // entity-decoded (`>=3.9`)
  std::optional<std::string> yanked;           // set when yanked; the reason, or ""
  bool has_core_metadata = false;              // PEP 658/714: `<url>.metadata` exists
  std::optional<FileHash> core_metadata_hash;  // its hash when the page gives one
  std::optional<std::uint64_t> size;           // PEP 700 (JSON only)
  std::optional<std::string> upload_time;

  /// The sha256 hex digest, if the page gave one.
  [[nodiscard]] std::optional<std::string> sha256() const;
  [[nodiscard]] std::string core_metadata_url() const { return url + ".metadata"; }
};

/// The links of a page in page order, each file (URL) once. Held compactly, one text buffer for
/// all of them and a record of 20 bytes a link (plus 64 for a link with hashes or data-*
/// attributes): a page of 1,000,000 links takes its text and ~40 MB, where a std::vector<Link>
/// took 300 bytes a link before its strings. Read as Link values, built on each access.
class Links {
 public:
  class const_iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Link;
    using difference_type = std::ptrdiff_t;
    using reference = Link;
    using pointer = void;
    const_iterator() = default;
    Link operator*() const { return (*m_links)[m_at]; }
    const_iterator& operator++() {
      ++m_at;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator before = *this;
      ++m_at;
      return before;
    }
    friend bool operator==(const const_iterator&, const const_iterator&) = default;

   private:
    friend class Links;
    const_iterator(const Links* links, std::size_t at) : m_links(links), m_at(at) {}
    const Links* m_links = nullptr;
    std::size_t m_at = 0;
  };

  [[nodiscard]] std::size_t size() const { return m_records.size(); }
  [[nodiscard]] bool empty() const { return m_records.empty(); }
  /// Link `i` (< size()).
  [[nodiscard]] Link operator[](std::size_t i) const;
  [[nodiscard]] Link front() const { return (*this)[0]; }
  [[nodiscard]] Link back() const { return (*this)[size() - 1]; }
  [[nodiscard]] const_iterator begin() const { return {this, 0}; }
  [[nodiscard]] const_iterator end() const { return {this, size()}; }
  /// Link `i`'s file name and URL, without building the Link.
  [[nodiscard]] std::string_view filename(std::size_t i) const;
  [[nodiscard]] std::string_view url(std::size_t i) const;

  /// Adds `link`, or merges it into the earlier link with the same URL (a file is its URL):
  /// hashes and fields it lacks are taken; two digests of one algorithm that differ are an
  /// error naming the file and both digests.
  std::expected<void, std::string> add(const Link& link);
  /// Room for `links` links of `text` bytes in all: address space only, touched as links come.
  void reserve(std::size_t links, std::size_t text);

 private:
  static constexpr std::uint32_t k_absent = 0xFFFFFFFF;
  struct Text {  // a string of m_text; size k_absent: none (an empty optional)
    std::uint32_t at = 0;
    std::uint32_t size = k_absent;
  };
  struct HashText {
    Text algorithm;
    Text hex;
  };
  struct Record {
    Text url;
    Text filename;
    std::uint32_t extra = k_absent;  // index in m_extras
  };
  struct Extra {               // what few links of a page have, beyond their URL and file name
    std::uint32_t hashes = 0;  // the first of hash_count in m_hashes
    std::uint32_t hash_count = 0;
    Text requires_python;
    Text yanked;
    Text upload_time;
    HashText core_metadata_hash;  // hex.size k_absent: none
    bool has_core_metadata = false;
    bool has_size = false;
    std::uint64_t size = 0;
  };
  struct Slot {  // the open-addressing index by URL
    std::uint32_t record = k_absent;
    std::uint32_t hash = 0;
  };

  [[nodiscard]] std::string_view text(Text t) const { return {m_text.data() + t.at, t.size}; }
  [[nodiscard]] std::optional<std::string> optional_text(Text t) const;
  std::expected<Text, std::string> store_text(std::string_view value);
  std::expected<Text, std::string> store_optional(const std::optional<std::string>& value);
  std::expected<HashText, std::string> store_hash(const FileHash& hash);
  std::expected<void, std::string> store_extra(Record& record, const Link& link);
  std::expected<void, std::string> merge(std::size_t i, const Link& link);
  void grow_index();

  std::string m_text;
  std::vector<Record> m_records;
  std::vector<Extra> m_extras;
  std::vector<HashText> m_hashes;
  std::vector<Text> m_algorithms;  // "sha256", ...: each name once
  std::vector<Slot> m_index;       // a power of two in size, at most 3/4 full
};

struct ProjectPage {
  std::string url;   // the page's own URL
  std::string name;  // project name as the page says it, "" if it does not
  Links links;       // in page order
};

/// PEP 503 HTML project page: hrefs resolved against `<base href>` or `page_url`, HTML entities
/// decoded; a file listed twice with different hashes is an error naming the file.
Parsed<ProjectPage> parse_project_html(std::string_view html, std::string_view page_url);

/// PEP 691 JSON project page (`application/vnd.pypi.simple.v1+json`).
Parsed<ProjectPage> parse_project_json(std::string_view json, std::string_view page_url);

/// Project names of a PEP 503 root page (HTML), as written.
Parsed<std::vector<std::string>> parse_root_html(std::string_view html);
/// One entry of an index's root: a project of a PEP 503 root page, or a directory of a web
/// server's listing (nginx and Apache autoindex, `python3 -m http.server`).
struct RootEntry {
  std::string name;  // as written (not normalised)
  std::string url;   // absolute, against `page_url`
};

/// What a root page or a directory listing names, read as a hint of what exists: each anchor's
/// one relative href segment (`cu126/`, `torch/` -> `torch`), else its text; sort links, `../`
/// and texts with spaces are skipped. Fails only on an unsupported PEP 629 version.
Parsed<std::vector<RootEntry>> parse_root_listing(std::string_view html, std::string_view page_url);

/// Project names of a PEP 691 root page (JSON).
Parsed<std::vector<std::string>> parse_root_json(std::string_view json);

}  // namespace wheelmod::index
