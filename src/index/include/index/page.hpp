// Index pages: PEP 503 "Simple Repository API" HTML and PEP 691 JSON, with the PEP 592 (yanked),
// PEP 658/714 (core metadata) and PEP 700 (size, upload time) additions. Pure parsers: text and
// the page's URL in, links out; fetching happens in src/net.
#pragma once

#include <cstdint>
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

struct ProjectPage {
  std::string url;          // the page's own URL
  std::string name;         // project name as the page says it, "" if it does not
  std::vector<Link> links;  // in page order
};

/// PEP 503 HTML project page: hrefs resolved against `<base href>` or `page_url`, HTML entities
/// decoded; a file listed twice with different hashes is an error naming the file.
Parsed<ProjectPage> parse_project_html(std::string_view html, std::string_view page_url);

/// PEP 691 JSON project page (`application/vnd.pypi.simple.v1+json`).
Parsed<ProjectPage> parse_project_json(std::string_view json, std::string_view page_url);

/// Project names of a PEP 503 root page (HTML), as written.
Parsed<std::vector<std::string>> parse_root_html(std::string_view html);
/// Project names of a PEP 691 root page (JSON).
Parsed<std::vector<std::string>> parse_root_json(std::string_view json);

}  // namespace wheelmod::index
