// RFC 3986 for wheelmod's URLs: splitting, reference resolution,
// percent-encoding, and what may be printed.
#include "core/url.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <system_error>

#include "core/strings.hpp"

namespace wheelmod {

namespace {

// The five components of RFC 3986 Appendix B. An absent component differs
// from an empty one ("http://a/b?" has an empty query, "http://a/b" none);
// §5.2.2 and §5.3 depend on that difference.
struct UriParts {
  std::optional<std::string_view> scheme;
  std::optional<std::string_view> authority;
  std::string_view path;
  std::optional<std::string_view> query;
  std::optional<std::string_view> fragment;
};

// The first of `text`'s characters that is one of `set`, or text.size(). A loop, where
// string_view::find_first_of calls memchr once per character (index pages resolve thousands of
// URLs).
std::size_t first_of(std::string_view text, std::string_view set) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    for (const char c : set) {
      if (text[i] == c) return i;
    }
  }
  return text.size();
}

// RFC 3986 Appendix B: ^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?
UriParts split_uri(std::string_view text) {
  UriParts parts;
  const auto first = first_of(text, ":/?#");
  if (first < text.size() && first > 0 && text[first] == ':') {
    parts.scheme = text.substr(0, first);
    text.remove_prefix(first + 1);
  }
  if (text.starts_with("//")) {
    text.remove_prefix(2);
    const auto end = first_of(text, "/?#");
    parts.authority = text.substr(0, end);
    text.remove_prefix(end);
  }
  const auto path_end = first_of(text, "?#");
  parts.path = text.substr(0, path_end);
  text.remove_prefix(path_end);
  if (text.starts_with('?')) {
    const auto end = std::min(text.find('#'), text.size());
    parts.query = text.substr(1, end - 1);
    text.remove_prefix(end);
  }
  if (text.starts_with('#')) parts.fragment = text.substr(1);
  return parts;
}

// Drops the last segment of `out` and the '/' before it (§5.2.4 step 2C).
void pop_segment(std::string& out) {
  const auto slash = out.rfind('/');
  out.resize(slash == std::string::npos ? 0 : slash);
}

// RFC 3986 §5.2.4 "Remove Dot Segments", step by step (rules A to E).
std::string remove_dot_segments(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  while (!in.empty()) {
    if (in.starts_with("../")) {  // A
      in.remove_prefix(3);
    } else if (in.starts_with("./")) {  // A
      in.remove_prefix(2);
    } else if (in.starts_with("/./")) {  // B
      in.remove_prefix(2);
    } else if (in == "/.") {  // B
      in = "/";
    } else if (in.starts_with("/../")) {  // C
      in.remove_prefix(3);
      pop_segment(out);
    } else if (in == "/..") {  // C
      in = "/";
      pop_segment(out);
    } else if (in == "." || in == "..") {  // D
      in = {};
    } else {  // E: move the first segment, with its leading '/', to the output
      const auto end = std::min(in.find('/', in.starts_with('/') ? 1 : 0), in.size());
      out.append(in.substr(0, end));
      in.remove_prefix(end);
    }
  }
  return out;
}

// RFC 3986 §5.2.3 "Merge Paths".
std::string merge_paths(const UriParts& base, std::string_view reference_path) {
  if (base.authority && base.path.empty()) return "/" + std::string(reference_path);
  const auto slash = base.path.rfind('/');
  if (slash == std::string_view::npos) return std::string(reference_path);
  return std::string(base.path.substr(0, slash + 1)) + std::string(reference_path);
}

bool is_unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

bool is_sub_delim(unsigned char c) {
  return std::string_view("!$&'()*+,;=").find(static_cast<char>(c)) != std::string_view::npos;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// RFC 3986 §3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
bool starts_with_scheme_and_authority(std::string_view text) {
  const auto colon = text.find("://");
  if (colon == std::string_view::npos || colon == 0) return false;
  const auto is_alpha = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); };
  if (!is_alpha(text[0])) return false;
  for (const char c : text.substr(0, colon)) {
    if (!is_alpha(c) && !(c >= '0' && c <= '9') && c != '+' && c != '-' && c != '.') return false;
  }
  return true;
}

}  // namespace

std::string resolve_url(std::string_view base_text, std::string_view reference) {
  const UriParts base = split_uri(base_text);
  const UriParts ref = split_uri(reference);
  // RFC 3986 §5.2.2 "Transform References", strict parser (a reference
  // with a scheme is taken as is, so "http:g" stays "http:g", §5.4.2).
  UriParts target;
  std::string path;
  if (ref.scheme) {
    target.scheme = ref.scheme;
    target.authority = ref.authority;
    path = remove_dot_segments(ref.path);
    target.query = ref.query;
  } else {
    if (ref.authority) {
      target.authority = ref.authority;
      path = remove_dot_segments(ref.path);
      target.query = ref.query;
    } else {
      if (ref.path.empty()) {
        path = std::string(base.path);
        target.query = ref.query ? ref.query : base.query;
      } else {
        path = remove_dot_segments(ref.path.starts_with('/') ? std::string(ref.path)
                                                             : merge_paths(base, ref.path));
        target.query = ref.query;
      }
      target.authority = base.authority;
    }
    target.scheme = base.scheme;
  }
  target.fragment = ref.fragment;

  // RFC 3986 §5.3 "Component Recomposition".
  std::string out;
  out.reserve(base_text.size() + reference.size());
  if (target.scheme) out.append(*target.scheme).push_back(':');
  if (target.authority) out.append("//").append(*target.authority);
  out.append(path);
  if (target.query) out.append("?").append(*target.query);
  if (target.fragment) out.append("#").append(*target.fragment);
  return out;
}

std::string percent_decode(std::string_view text) {
  if (text.find('%') == std::string_view::npos) return std::string(text);
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      const int high = hex_value(text[i + 1]);
      const int low = hex_value(text[i + 2]);
      if (high >= 0 && low >= 0) {
        out.push_back(static_cast<char>(high * 16 + low));
        i += 2;
        continue;
      }
    }
    out.push_back(text[i]);
  }
  return out;
}

std::string percent_encode_segment(std::string_view text) {
  static constexpr std::string_view k_hex = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    // RFC 3986 §3.3: a segment may hold unreserved characters and
    // sub-delims literally. `+` is encoded all the same: S3 behind
    // download.pytorch.org reads a literal `+` as a space and answers 403
    // (astral-sh/uv#1497); `%2B` means `+` to every RFC 3986 server.
    if (is_unreserved(c) || (is_sub_delim(c) && c != '+')) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(k_hex[c >> 4U]);
      out.push_back(k_hex[c & 0x0FU]);
    }
  }
  return out;
}

std::string_view without_fragment(std::string_view url) { return url.substr(0, url.find('#')); }

std::string_view fragment_of(std::string_view url) {
  const auto hash = url.find('#');
  return hash == std::string_view::npos ? std::string_view{} : url.substr(hash + 1);
}

std::string to_url(std::string_view path_or_url) {
  if (starts_with_scheme_and_authority(path_or_url)) return std::string(path_or_url);
  namespace fs = std::filesystem;
  const fs::path given(path_or_url.empty() ? std::string_view(".") : path_or_url);
  std::error_code error;
  fs::path absolute = fs::absolute(given, error);
  if (error) absolute = given;  // no current directory: keep what we were given
  std::string normal = absolute.lexically_normal().generic_string();
  // lexically_normal turns a trailing "." into a trailing '/'; keep a
  // trailing '/' exactly when the caller wrote one (or for the root).
  const bool wants_slash = path_or_url.ends_with('/');
  if (normal.size() > 1 && normal.ends_with('/') && !wants_slash) normal.pop_back();
  if (wants_slash && !normal.ends_with('/')) normal.push_back('/');

  // RFC 8089 §2: file URLs with an empty authority, "file:///abs/path".
  std::string out = "file://";
  std::string_view rest = normal;
  while (!rest.empty()) {
    const auto slash = std::min(rest.find('/'), rest.size());
    out.append(percent_encode_segment(rest.substr(0, slash)));
    if (slash < rest.size()) out.push_back('/');
    rest.remove_prefix(std::min(slash + 1, rest.size()));
  }
  return out;
}

std::string join_url(std::string_view base, std::string_view relative) {
  const bool base_slash = base.ends_with('/');
  const bool relative_slash = relative.starts_with('/');
  std::string out(base);
  if (base_slash && relative_slash) {
    relative.remove_prefix(1);
  } else if (!base_slash && !relative_slash) {
    out.push_back('/');
  }
  out.append(relative);
  return out;
}

Url::Url(std::string text) : m_text(std::move(text)) {
  // RFC 3986 Appendix B, the same split as split_uri, kept as offsets so
  // that a copied Url stays valid.
  const std::string_view all = m_text;
  std::size_t at = 0;
  const auto first = all.find_first_of(":/?#");
  if (first != std::string_view::npos && first > 0 && all[first] == ':') {
    m_scheme = {true, 0, first};
    at = first + 1;
  }
  if (all.substr(at).starts_with("//")) {
    const auto begin = at + 2;
    const auto end = std::min(all.find_first_of("/?#", begin), all.size());
    m_authority = {true, begin, end - begin};
    at = end;
  }
  const auto path_end = std::min(all.find_first_of("?#", at), all.size());
  m_path = {true, at, path_end - at};
  at = path_end;
  if (at < all.size() && all[at] == '?') {
    const auto end = std::min(all.find('#', at), all.size());
    m_query = {true, at + 1, end - at - 1};
    at = end;
  }
  if (at < all.size() && all[at] == '#') m_fragment = {true, at + 1, all.size() - at - 1};
}

std::string Url::scheme() const { return ascii_lower(view(m_scheme)); }

bool Url::is_http() const {
  const auto name = scheme();
  return name == "http" || name == "https";
}

std::string_view Url::host() const {
  auto authority = view(m_authority);
  if (const auto at = authority.rfind('@'); at != std::string_view::npos)
    authority.remove_prefix(at + 1);
  // An IPv6 literal keeps its colons inside brackets (RFC 3986 §3.2.2).
  const auto close = authority.starts_with('[') ? authority.find(']') : std::string_view::npos;
  const auto colon = authority.find(':', close == std::string_view::npos ? 0 : close);
  return authority.substr(0, colon);
}

std::string_view Url::origin() const {
  if (!m_authority.present) return {};
  return std::string_view(m_text).substr(0, m_authority.begin + m_authority.size);
}

std::optional<std::string_view> Url::fragment() const {
  if (!m_fragment.present) return std::nullopt;
  return view(m_fragment);
}

std::string Url::masked() const {
  // scheme://userinfo@host...: only the password part of userinfo is secret.
  const auto authority = view(m_authority);
  const auto at = authority.rfind('@');
  if (!m_authority.present || at == std::string_view::npos) return m_text;
  const auto colon = authority.substr(0, at).find(':');
  std::string out = m_text.substr(0, m_authority.begin);
  if (colon == std::string_view::npos) {
    out += "***";  // a bare token in the user part is a secret too
  } else {
    out += authority.substr(0, colon);
    out += ":***";
  }
  out += std::string_view(m_text).substr(m_authority.begin + at);
  return out;
}

std::string mask_credentials(std::string_view url) { return Url(std::string(url)).masked(); }

namespace {

// scheme://[userinfo@]host[:port]: (text before the authority, userinfo with '@', the rest).
struct Authority {
  std::string before;
  std::string userinfo;  // "user:secret@", or ""
  std::string host_and_rest;
};

std::optional<Authority> split_authority(std::string_view url) {
  const auto start = url.find("://");
  if (start == std::string_view::npos) return std::nullopt;
  const auto begin = start + 3;
  const auto end = url.find_first_of("/?#", begin);
  const auto authority = url.substr(begin, end == std::string_view::npos ? url.npos : end - begin);
  const auto at = authority.rfind('@');
  Authority out{std::string(url.substr(0, begin)), "", std::string(url.substr(begin))};
  if (at != std::string_view::npos) {
    out.userinfo = std::string(authority.substr(0, at + 1));
    out.host_and_rest = std::string(url.substr(begin + at + 1));
  }
  return out;
}

}  // namespace

std::string without_credentials(std::string_view url) {
  const auto parts = split_authority(url);
  if (!parts) return std::string(url);
  return parts->before + parts->host_and_rest;
}

std::string with_credentials_of(std::string_view url, std::string_view source) {
  const auto target = split_authority(url);
  const auto given = split_authority(source);
  if (!target || !given || !target->userinfo.empty() || given->userinfo.empty())
    return std::string(url);
  const auto host_of = [](const Authority& parts) {
    return ascii_lower(parts.before +
                       parts.host_and_rest.substr(0, parts.host_and_rest.find_first_of("/?#")));
  };
  if (host_of(*target) != host_of(*given)) return std::string(url);
  return target->before + given->userinfo + target->host_and_rest;
}

}  // namespace wheelmod
