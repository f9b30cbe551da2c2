// Private helpers shared by the HTML (page_html.cpp) and JSON
// (page_json.cpp) index page parsers. Errors are plain messages here; the
// parsers wrap them in a ParseError for the page.
#pragma once

#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "index/page.hpp"

namespace wheelmod::index::detail {

/// The parse error of the page at `page_url`: what each parser returns.
inline ParseError page_error(std::string_view page_url, std::string message) {
  return ParseError{std::string(page_url), std::move(message)};
}

template <class T>
using Checked = std::expected<T, std::string>;

/// A FileHash for `algorithm` (any case) and `hex`: nullopt for an
/// algorithm we do not use; an error for one we use with a value that is
/// not a hex digest of its length.
Checked<std::optional<FileHash>> make_hash(std::string_view algorithm, std::string_view hex);

/// The hashes in a URL fragment (`sha256=<hex>`, PEP 503), parts joined by
/// `&`; parts we do not use (`egg=`, junk) are ignored.
Checked<std::vector<FileHash>> fragment_hashes(std::string_view fragment);

struct CoreMetadata {
  bool present = false;
  std::optional<FileHash> hash;
};

/// The value of `data-core-metadata` / `data-dist-info-metadata` (PEP 658,
/// PEP 714): `true`, `false`, or `<hashname>=<hex>`.
Checked<CoreMetadata> core_metadata_attribute(std::string_view value);

/// Whether `name` can be a file's name: one non-empty path segment, not
/// `.` or `..`, without '/', '\\' or NUL (a decoded `%2F` must not turn a
/// link into a path).
bool is_file_name(std::string_view name);

/// `url` with the characters RFC 3986 never allows (space, non-ASCII, `<`,
/// ...) percent-encoded, and `+` in the path as `%2B` (download.pytorch.org answers a literal `+`
/// with 403, astral-sh/uv#1497).
std::string clean_url(std::string_view url);

/// PEP 629 / PEP 691 API version: "1.x" is ours; anything else is an
/// error saying which version the page declared.
Checked<void> check_api_version(std::string_view version);

}  // namespace wheelmod::index::detail
