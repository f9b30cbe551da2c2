// URL helpers the index layer needs, per RFC 3986.
#pragma once

#include <string>
#include <string_view>

namespace wheelmod::index {

/// RFC 3986 §5.2 reference resolution (`../x.whl` against
/// `https://h/whl/cu126/torch/` is `https://h/whl/cu126/x.whl`); works for
/// http(s) and file URLs; removes dot segments (§5.2.4).
std::string resolve_url(std::string_view base, std::string_view reference);

/// Decodes `%XX` escapes (`%2B` -> `+`); malformed escapes are kept as is.
std::string percent_decode(std::string_view text);

/// Percent-encodes what may not stand in a path segment, and `+` (which
/// download.pytorch.org answers with 403 when unencoded).
std::string percent_encode_segment(std::string_view text);

/// The URL without `#fragment`; and the fragment alone ("" if none).
std::string_view without_fragment(std::string_view url);
std::string_view fragment_of(std::string_view url);

/// "file:///abs/path" for a local path (made absolute), or the URL as given
/// when it already has a scheme. A trailing '/' is kept.
std::string to_url(std::string_view path_or_url);

/// Joins a directory URL and a relative path: ("https://h/whl", "cu126/torch/")
/// -> "https://h/whl/cu126/torch/".
std::string join_url(std::string_view base, std::string_view relative);

}  // namespace wheelmod::index
