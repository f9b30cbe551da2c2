// PEP 508 "Grammar" for dependency specifiers, following python3-packaging
// 23.0 (_parser.py parse_requirement, requirements.py Requirement).
#include "pep/requirement.hpp"

#include <algorithm>
#include <initializer_list>
#include <utility>

#include "ascii.hpp"
#include "marker_grammar.hpp"
#include "pep/name.hpp"
#include "python_space.hpp"

namespace wheelmod::pep {

namespace {

using detail::is_alnum;
using detail::is_alpha;
using detail::is_digit;
using detail::is_separator;
using detail::to_lower;

using pep508::k_no_match;
using pep508::SyntaxError;
using pep508::Tokenizer;

bool at(std::string_view s, std::size_t pos, bool (*predicate)(char)) {
  return pos < s.size() && predicate(s[pos]);
}

std::size_t skip(std::string_view s, std::size_t pos, bool (*predicate)(char)) {
  while (at(s, pos, predicate)) ++pos;
  return pos;
}

bool starts_with_icase(std::string_view s, std::size_t pos, std::string_view word) {
  if (s.size() - std::min(pos, s.size()) < word.size()) return false;
  return std::ranges::equal(s.substr(pos, word.size()), word,
                            [](char a, char b) { return to_lower(a) == b; });
}

std::size_t skip_python_spaces(std::string_view s, std::size_t pos) {
  while (const std::size_t length = detail::python_space_length(s, pos)) pos += length;
  return pos;
}

// `[-_.]?(word|...)[-_.]?[0-9]*`, the first listed word that matches (the
// regex alternation order); k_no_match when none does.
std::size_t match_suffix(std::string_view s, std::size_t pos,
                         std::initializer_list<std::string_view> words) {
  const std::size_t start = at(s, pos, is_separator) ? pos + 1 : pos;
  for (std::string_view word : words) {
    if (!starts_with_icase(s, start, word)) continue;
    std::size_t end = start + word.size();
    if (at(s, end, is_separator)) ++end;
    return skip(s, end, is_digit);
  }
  return k_no_match;
}

/// The version part of packaging's Specifier regex (the `(?P<version>...)`
/// alternatives, chosen by the operator's look-behinds) matched at `pos`.
/// Every group after the release is optional, so the regex engine's first
/// success is each group taking its first way to match, in order.
std::size_t match_specifier_version(std::string_view s, std::size_t pos, std::string_view op) {
  std::size_t p = skip_python_spaces(s, pos);
  if (op == "===") {  // PEP 440 "Arbitrary equality": anything but \s ; )
    while (p < s.size() && s[p] != ';' && s[p] != ')' && detail::python_space_length(s, p) == 0)
      ++p;
    return p - pos;
  }
  if (p < s.size() && to_lower(s[p]) == 'v') ++p;
  if (const std::size_t epoch_end = skip(s, p, is_digit);
      epoch_end > p && at(s, epoch_end, [](char c) { return c == '!'; }))
    p = epoch_end + 1;
  if (!at(s, p, is_digit)) return k_no_match;
  p = skip(s, p, is_digit);
  std::size_t release_parts = 1;
  while (at(s, p, [](char c) { return c == '.'; }) && at(s, p + 1, is_digit)) {
    p = skip(s, p + 1, is_digit);
    ++release_parts;
  }
  if (op == "~=" && release_parts < 2) return k_no_match;  // PEP 440 "Compatible release"
  const bool equality = op == "==" || op == "!=";
  if (equality && s.substr(p).starts_with(".*")) return p + 2 - pos;
  const auto optional = [&](std::size_t end) {
    if (end != k_no_match) p = end;
  };
  optional(match_suffix(s, p, {"alpha", "beta", "preview", "pre", "a", "b", "c", "rc"}));
  if (at(s, p, [](char c) { return c == '-'; }) && at(s, p + 1, is_digit)) {
    p = skip(s, p + 1, is_digit);  // `1.0-1` post-release
  } else {
    optional(match_suffix(s, p, {"post", "rev", "r"}));
  }
  optional(match_suffix(s, p, {"dev"}));
  if (equality && at(s, p, [](char c) { return c == '+'; }) && at(s, p + 1, is_alnum)) {
    p = skip(s, p + 1, is_alnum);  // PEP 440 "Local version identifiers"
    while (at(s, p, is_separator) && at(s, p + 1, is_alnum)) p = skip(s, p + 1, is_alnum);
  }
  return p - pos;
}

// packaging's SPECIFIER rule: operator then version, operators tried in the
// regex's order (so `===` wins only where `==` cannot go on).
std::size_t match_specifier(std::string_view s, std::size_t pos) {
  for (std::string_view op : {"~=", "==", "!=", "<=", ">=", "<", ">", "==="}) {
    if (!s.substr(pos).starts_with(op)) continue;
    const std::size_t version = match_specifier_version(s, pos + op.size(), op);
    if (version != k_no_match) return op.size() + version;
  }
  return k_no_match;
}

// \b[a-zA-Z0-9][a-zA-Z0-9._-]*\b, backing off to the last word boundary.
std::size_t match_identifier(std::string_view s, std::size_t pos) {
  if (!at(s, pos, is_alnum) || !pep508::is_word_boundary(s, pos)) return k_no_match;
  const std::size_t end = skip(s, pos + 1, [](char c) { return is_alnum(c) || is_separator(c); });
  for (std::size_t e = end; e > pos; --e)
    if (pep508::is_word_boundary(s, e)) return e - pos;
  return k_no_match;
}

std::size_t match_url(std::string_view s, std::size_t pos) {  // [^ \t]+
  const std::size_t end = std::min(s.find_first_of(" \t", pos), s.size());
  return end > pos ? end - pos : k_no_match;
}

template <char C>
std::size_t match_char(std::string_view s, std::size_t pos) {
  return pos < s.size() && s[pos] == C ? 1 : k_no_match;
}

struct RawRequirement {
  std::string name;
  std::string url;
  std::vector<std::string> extras;
  std::string specifier;
  std::optional<Marker::Node> marker;
};

std::string column_of(std::size_t position) { return std::to_string(position + 1); }

// extras = '[' WS? (IDENTIFIER (WS? ',' WS? IDENTIFIER)*)? WS? ']'
std::expected<std::vector<std::string>, SyntaxError> parse_extras(Tokenizer& tokenizer) {
  std::vector<std::string> extras;
  const std::size_t open = tokenizer.position();
  if (!tokenizer.take(match_char<'['>)) return extras;
  tokenizer.take(pep508::match_ws);
  if (auto first = tokenizer.take(match_identifier)) {
    extras.emplace_back(*first);
    for (;;) {
      tokenizer.take(pep508::match_ws);
      if (tokenizer.peek(match_identifier))
        return std::unexpected(tokenizer.error("expected comma between extra names"));
      if (!tokenizer.take(match_char<','>)) break;
      tokenizer.take(pep508::match_ws);
      auto extra = tokenizer.expect(match_identifier, "extra name after comma");
      if (!extra) return std::unexpected(extra.error());
      extras.emplace_back(*extra);
    }
  }
  tokenizer.take(pep508::match_ws);
  if (!tokenizer.take(match_char<']'>)) {
    return std::unexpected(
        tokenizer.error("expected ']' to close the '[' at column " + column_of(open)));
  }
  return extras;
}

// specifier = '(' WS? version_many WS? ')' | WS? version_many WS?
// version_many = (SPECIFIER (WS? ',' WS? SPECIFIER)*)?   (a trailing ',' is kept)
std::expected<std::string, SyntaxError> parse_specifier(Tokenizer& tokenizer) {
  const std::size_t open = tokenizer.position();
  const bool parenthesised = tokenizer.take(pep508::match_left_paren).has_value();
  tokenizer.take(pep508::match_ws);
  std::string specifier;
  while (auto clause = tokenizer.take(match_specifier)) {
    specifier += *clause;
    tokenizer.take(pep508::match_ws);
    if (!tokenizer.take(match_char<','>)) break;
    specifier += ',';
    tokenizer.take(pep508::match_ws);
  }
  tokenizer.take(pep508::match_ws);
  if (parenthesised && !tokenizer.take(pep508::match_right_paren)) {
    return std::unexpected(
        tokenizer.error("expected ')' to close the '(' at column " + column_of(open)));
  }
  return specifier;
}

// requirement_marker = ';' marker WS?
std::expected<Marker::Node, SyntaxError> parse_requirement_marker(Tokenizer& tokenizer,
                                                                  std::string_view after) {
  if (!tokenizer.take(match_char<';'>))
    return std::unexpected(tokenizer.error("expected end or ';' after " + std::string(after)));
  auto marker = pep508::parse_marker(tokenizer);
  tokenizer.take(pep508::match_ws);
  return marker;
}

// requirement = WS? IDENTIFIER WS? extras WS? requirement_details END
// requirement_details = '@' WS? URL (WS requirement_marker?)?
//                     | specifier WS? requirement_marker?
std::expected<RawRequirement, SyntaxError> parse_raw(Tokenizer& tokenizer) {
  RawRequirement raw;
  tokenizer.take(pep508::match_ws);
  auto name = tokenizer.expect(match_identifier, "a package name at the start");
  if (!name) return std::unexpected(name.error());
  raw.name = std::string(*name);
  tokenizer.take(pep508::match_ws);
  auto extras = parse_extras(tokenizer);
  if (!extras) return std::unexpected(extras.error());
  raw.extras = std::move(*extras);
  tokenizer.take(pep508::match_ws);

  std::expected<Marker::Node, SyntaxError> marker;
  if (tokenizer.take(match_char<'@'>)) {
    tokenizer.take(pep508::match_ws);
    auto url = tokenizer.expect(match_url, "a URL after '@'");
    if (!url) return std::unexpected(url.error());
    raw.url = std::string(*url);
    if (tokenizer.peek(pep508::match_end)) return raw;
    if (auto ws = tokenizer.expect(pep508::match_ws, "whitespace after the URL"); !ws)
      return std::unexpected(ws.error());
    if (tokenizer.peek(pep508::match_end)) return raw;
    marker = parse_requirement_marker(tokenizer, "the URL and whitespace");
  } else {
    auto specifier = parse_specifier(tokenizer);
    if (!specifier) return std::unexpected(specifier.error());
    raw.specifier = std::move(*specifier);
    tokenizer.take(pep508::match_ws);
    if (tokenizer.peek(pep508::match_end)) return raw;
    marker = parse_requirement_marker(tokenizer, raw.specifier.empty()
                                                     ? "the name (no valid version specifier)"
                                                     : "the version specifier");
  }
  if (!marker) return std::unexpected(marker.error());
  raw.marker = std::move(*marker);
  if (auto end = tokenizer.expect(pep508::match_end, "end of dependency specifier"); !end)
    return std::unexpected(end.error());
  return raw;
}

// --- URL checks: what packaging's Requirement does with urllib.parse ------

// ipaddress.IPv4Address: four decimal octets, no leading zeros.
bool is_ipv4(std::string_view text) {
  std::size_t octets = 0;
  for (std::size_t start = 0;; ++octets) {
    const std::size_t dot = std::min(text.find('.', start), text.size());
    const std::string_view octet = text.substr(start, dot - start);
    if (octet.empty() || octet.size() > 3 || !std::ranges::all_of(octet, is_digit)) return false;
    if (octet.size() > 1 && octet[0] == '0') return false;
    if (std::stoi(std::string(octet)) > 255) return false;
    if (dot == text.size()) return octets == 3;
    start = dot + 1;
  }
}

// ipaddress.IPv6Address, scope id (`%eth0`) included.
bool is_ipv6(std::string_view text) {
  const std::size_t percent = text.find('%');
  if (percent != std::string_view::npos) {
    const std::string_view scope = text.substr(percent + 1);
    if (scope.empty() || scope.find('%') != std::string_view::npos) return false;
    text = text.substr(0, percent);
  }
  if (text.empty()) return false;
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const std::size_t colon = std::min(text.find(':', start), text.size());
    parts.push_back(text.substr(start, colon - start));
    if (colon == text.size()) break;
    start = colon + 1;
  }
  if (parts.size() < 3) return false;
  if (parts.back().find('.') != std::string_view::npos) {  // trailing dotted IPv4
    if (!is_ipv4(parts.back())) return false;
    parts.back() = "0";
    parts.push_back("0");
  }
  if (parts.size() > 9) return false;
  std::optional<std::size_t> skip_index;
  for (std::size_t i = 1; i + 1 < parts.size(); ++i) {
    if (!parts[i].empty()) continue;
    if (skip_index) return false;  // at most one `::`
    skip_index = i;
  }
  std::size_t high = parts.size();
  std::size_t low = 0;
  if (skip_index) {
    high = *skip_index;
    low = parts.size() - *skip_index - 1;
    if (parts.front().empty() && --high > 0) return false;
    if (parts.back().empty() && --low > 0) return false;
    if (high + low > 7) return false;
  } else if (parts.size() != 8 || parts.front().empty() || parts.back().empty()) {
    return false;
  }
  const auto hextet = [](std::string_view part) {
    return !part.empty() && part.size() <= 4 && std::ranges::all_of(part, [](char c) {
      return is_digit(c) || (to_lower(c) >= 'a' && to_lower(c) <= 'f');
    });
  };
  for (std::size_t i = 0; i < high; ++i)
    if (!hextet(parts[i])) return false;
  for (std::size_t i = parts.size() - low; i < parts.size(); ++i)
    if (!hextet(parts[i])) return false;
  return true;
}

// urllib.parse._check_bracketed_netloc / _check_bracketed_host.
std::optional<std::string> bracketed_netloc_problem(std::string_view netloc) {
  const std::size_t at_sign = netloc.rfind('@');
  const std::string_view host_port =
      at_sign == std::string_view::npos ? netloc : netloc.substr(at_sign + 1);
  std::string_view host = host_port.substr(0, host_port.find(':'));
  if (const std::size_t open = host_port.find('['); open != std::string_view::npos) {
    if (open != 0) return "text before '[' in the host";
    const std::string_view bracketed = host_port.substr(1);
    const std::size_t close = bracketed.find(']');
    host = bracketed.substr(0, close);
    const std::string_view port =
        close == std::string_view::npos ? std::string_view() : bracketed.substr(close + 1);
    if (!port.empty() && port[0] != ':') return "text after ']' that is not a port";
  }
  if (host.starts_with('v')) {  // RFC 3986 IPvFuture: v<hex>.<anything>
    const std::size_t dot = skip(
        host, 1, [](char c) { return is_digit(c) || (to_lower(c) >= 'a' && to_lower(c) <= 'f'); });
    if (dot == 1 || dot + 1 >= host.size() || host[dot] != '.') return "invalid IPvFuture host";
    return std::nullopt;
  }
  if (is_ipv4(host)) return "an IPv4 address cannot be in brackets";
  if (!is_ipv6(host)) return "invalid IPv6 host '" + std::string(host) + "'";
  return std::nullopt;
}

struct UrlParts {
  std::string scheme, netloc, path, query, fragment;
};

// urllib.parse.urlsplit (Python 3.11): WHATWG clean-up, then scheme,
// `//netloc`, `#fragment`, `?query`.
std::expected<UrlParts, std::string> split_url(std::string_view text) {
  std::string url(text.substr(std::min(
      text.size(), skip(text, 0, [](char c) { return static_cast<unsigned char>(c) <= 0x20; }))));
  std::erase_if(url, [](char c) { return c == '\t' || c == '\r' || c == '\n'; });
  UrlParts parts;
  const std::size_t colon = url.find(':');
  if (colon != std::string::npos && colon > 0 && is_alpha(url[0]) &&
      std::all_of(url.begin(), url.begin() + static_cast<std::ptrdiff_t>(colon),
                  [](char c) { return is_alnum(c) || c == '+' || c == '-' || c == '.'; })) {
    for (std::size_t i = 0; i < colon; ++i) parts.scheme += to_lower(url[i]);
    url.erase(0, colon + 1);
  }
  if (url.starts_with("//")) {
    const std::size_t end = std::min(url.find_first_of("/?#", 2), url.size());
    parts.netloc = url.substr(2, end - 2);
    url.erase(0, end);
    const bool open = parts.netloc.find('[') != std::string::npos;
    const bool close = parts.netloc.find(']') != std::string::npos;
    if (open != close) return std::unexpected("unbalanced '[' or ']' in the host");
    if (open) {
      if (auto problem = bracketed_netloc_problem(parts.netloc)) return std::unexpected(*problem);
    }
  }
  if (const std::size_t hash = url.find('#'); hash != std::string::npos) {
    parts.fragment = url.substr(hash + 1);
    url.resize(hash);
  }
  if (const std::size_t question = url.find('?'); question != std::string::npos) {
    parts.query = url.substr(question + 1);
    url.resize(question);
  }
  parts.path = std::move(url);
  return parts;
}

// urllib.parse.urlunsplit for a `file` URL (`file` is in uses_netloc).
std::string join_file_url(const UrlParts& parts) {
  std::string url = parts.path;
  if (!parts.netloc.empty() || !url.starts_with("//")) {
    if (!url.empty() && url[0] != '/') url.insert(0, "/");
    url = "//" + parts.netloc + url;
  }
  url = parts.scheme + ":" + url;
  if (!parts.query.empty()) url += "?" + parts.query;
  if (!parts.fragment.empty()) url += "#" + parts.fragment;
  return url;
}

/// packaging 23.0 Requirement.__init__: a `file:` URL must survive
/// urlparse/urlunparse unchanged; any other URL needs a scheme and a host.
std::optional<std::string> why_url_invalid(std::string_view url) {
  auto parts = split_url(url);
  if (!parts) return parts.error();
  if (parts->scheme == "file") {
    const std::string canonical = join_file_url(*parts);
    if (canonical != url) return "a file URL must be written as '" + canonical + "'";
    return std::nullopt;
  }
  if (parts->scheme.empty() || parts->netloc.empty())
    return "a URL needs a scheme and a host, like 'https://host/path'";
  return std::nullopt;
}

}  // namespace

Parsed<Requirement> Requirement::parse(std::string_view text) {
  Tokenizer tokenizer(text);
  auto raw = parse_raw(tokenizer);
  if (!raw) return std::unexpected(pep508::to_parse_error(text, raw.error()));

  Requirement requirement;
  requirement.name = std::move(raw->name);
  if (!raw->url.empty()) {
    if (auto problem = why_url_invalid(raw->url)) {
      return std::unexpected(
          ParseError{std::string(text), "invalid URL '" + raw->url + "': " + *problem});
    }
    requirement.url = std::move(raw->url);
  }
  requirement.extras = std::move(raw->extras);  // a set in packaging: sorted, unique
  std::ranges::sort(requirement.extras);
  requirement.extras.erase(std::ranges::unique(requirement.extras).begin(),
                           requirement.extras.end());
  auto specifier = SpecifierSet::parse(raw->specifier);
  if (!specifier) {
    return std::unexpected(
        ParseError{std::string(text), specifier.error().describe("version specifier")});
  }
  requirement.specifier = std::move(*specifier);
  if (raw->marker) {
    pep508::normalize_extra_values(*raw->marker);
    requirement.marker = Marker::Node::make_marker(std::move(*raw->marker));
  }
  return requirement;
}

std::string Requirement::canonical_name() const { return canonicalize_name(name); }

bool Requirement::applies_to(const MarkerEnvironment& env,
                             const std::vector<std::string>& requested_extras) const {
  if (!marker) return true;
  // A marker packaging cannot evaluate (UndefinedComparison) does not apply.
  const auto holds = [&](std::string_view extra) {
    const auto value = marker->evaluate(env, extra);
    return value.has_value() && *value;
  };
  return holds("") || std::ranges::any_of(requested_extras, holds);
}

std::string Requirement::str() const {
  std::string text = name;
  if (!extras.empty()) {
    std::vector<std::string> sorted = extras;
    std::ranges::sort(sorted);
    sorted.erase(std::ranges::unique(sorted).begin(), sorted.end());
    text += '[';
    for (std::size_t i = 0; i < sorted.size(); ++i) text += (i > 0 ? "," : "") + sorted[i];
    text += ']';
  }
  if (!specifier.empty()) text += specifier.str();
  if (url) {
    text += "@ " + *url;  // packaging prints `name@ url`
    if (marker) text += ' ';
  }
  if (marker) text += "; " + marker->str();
  return text;
}

}  // namespace wheelmod::pep
