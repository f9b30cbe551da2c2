// URLs as wheelmod meets them: index roots, pages, wheel links with sha256 fragments, file:// URLs
// and plain paths. One type splits them (RFC 3986 Appendix B) so every layer asks the same
// questions the same way: which scheme, host, local file, and what may be printed (no password).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace wheelmod {

/// A URL split as written (nothing decoded); a plain path is one without scheme or authority.
class Url {
 public:
  explicit Url(std::string text);

  /// The whole URL, credentials included: for requests only, never output.
  [[nodiscard]] const std::string& str() const { return m_text; }
  /// Lower-cased (schemes are case-insensitive, RFC 3986 §3.1); "" when none.
  [[nodiscard]] std::string scheme() const;
  [[nodiscard]] bool is_http() const;  // http or https
  [[nodiscard]] bool has_authority() const { return m_authority.present; }
  /// `user:password@host:port`, as written; "" when absent.
  [[nodiscard]] std::string_view authority() const { return view(m_authority); }
  /// The host of the authority, without user information and port.
  [[nodiscard]] std::string_view host() const;
  [[nodiscard]] std::string_view path() const { return view(m_path); }
  /// `scheme://authority` ("" without an authority).
  [[nodiscard]] std::string_view origin() const;
  [[nodiscard]] std::optional<std::string_view> fragment() const;
  /// The URL with the password (or a bare token) of the authority as `***`.
  [[nodiscard]] std::string masked() const;

 private:
  struct Span {
    bool present = false;
    std::size_t begin = 0;
    std::size_t size = 0;
  };
  [[nodiscard]] std::string_view view(Span span) const {
    return {m_text.data() + span.begin, span.size};
  }

  std::string m_text;
  Span m_scheme;
  Span m_authority;
  Span m_path;
  Span m_query;
  Span m_fragment;
};

/// `https://user:secret@host/x` -> `https://user:***@host/x`, for messages.
std::string mask_credentials(std::string_view url);

/// `https://user:secret@host/x` -> `https://host/x`: what may be stored in a file.
std::string without_credentials(std::string_view url);

/// `url` with the userinfo of `source` when both have the same scheme, host and port and `url`
/// has none: a URL stored without credentials, used again with those given at run time.
std::string with_credentials_of(std::string_view url, std::string_view source);

/// RFC 3986 §5.2 reference resolution for http(s) and file URLs, dot segments removed (§5.2.4):
/// `../x.whl` against `https://h/whl/cu126/torch/` is `https://h/whl/cu126/x.whl`.
std::string resolve_url(std::string_view base, std::string_view reference);

/// Decodes `%XX` escapes (`%2B` -> `+`); malformed escapes are kept as is.
std::string percent_decode(std::string_view text);

/// Percent-encodes a path segment, `+` included (download.pytorch.org answers 403 for a raw `+`).
std::string percent_encode_segment(std::string_view text);

/// The URL without `#fragment`; and the fragment alone ("" if none).
std::string_view without_fragment(std::string_view url);
std::string_view fragment_of(std::string_view url);

/// "file:///abs/path" for a local path (made absolute), else the URL itself; a trailing '/' stays.
std::string to_url(std::string_view path_or_url);

/// ("https://h/whl", "cu126/torch/") -> "https://h/whl/cu126/torch/".
std::string join_url(std::string_view base, std::string_view relative);

}  // namespace wheelmod
