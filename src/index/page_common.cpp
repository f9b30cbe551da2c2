// Hashes, core metadata values, URL clean-up and the duplicate-file rule,
// shared by the HTML and JSON page parsers.
#include "page_common.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "core/strings.hpp"

namespace wheelmod::index {

std::optional<std::string> Link::sha256() const {
  for (const auto& hash : hashes) {
    if (hash.algorithm == "sha256") return hash.hex;
  }
  return std::nullopt;
}

namespace detail {

namespace {

struct Algorithm {
  std::string_view name;
  std::size_t min_hex;  // digest length in hex digits
  std::size_t max_hex;
};

// The hashlib names pip and uv take from a fragment (PEP 503 "#<hashname>=
// <hashvalue>"). blake2b's digest size is a parameter (blake2b-256 is
// common), so any whole number of bytes up to 64 is accepted for it.
constexpr std::array k_algorithms{
    Algorithm{"sha256", 64, 64}, Algorithm{"sha384", 96, 96},  Algorithm{"sha512", 128, 128},
    Algorithm{"md5", 32, 32},    Algorithm{"blake2b", 2, 128},
};

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

// RFC 3986 §2.2 reserved, §2.3 unreserved, and '%' of §2.1 escapes: a
// table, since clean_url asks for every character of every link.
constexpr std::array<bool, 256> k_allowed_in_uri = [] {
  std::array<bool, 256> table{};
  for (int c = 'A'; c <= 'Z'; ++c) table[static_cast<std::size_t>(c)] = true;
  for (int c = 'a'; c <= 'z'; ++c) table[static_cast<std::size_t>(c)] = true;
  for (int c = '0'; c <= '9'; ++c) table[static_cast<std::size_t>(c)] = true;
  for (const char c : std::string_view("-._~:/?#[]@!$&'()*+,;=%"))
    table[static_cast<unsigned char>(c)] = true;
  return table;
}();

bool allowed_in_uri(unsigned char c) { return k_allowed_in_uri[c]; }

}  // namespace

Checked<std::optional<FileHash>> make_hash(std::string_view algorithm, std::string_view hex) {
  std::string name = ascii_lower(algorithm);
  const auto known = std::find_if(k_algorithms.begin(), k_algorithms.end(),
                                  [&](const Algorithm& a) { return a.name == name; });
  if (known == k_algorithms.end()) return std::nullopt;
  std::string digest = ascii_lower(hex);
  const bool hex_only = std::all_of(digest.begin(), digest.end(), is_hex);
  if (!hex_only || digest.size() < known->min_hex || digest.size() > known->max_hex ||
      digest.size() % 2 != 0) {
    // A digest that cannot be right: dropping it would quietly turn off
    // the check the page asked for, so say so instead.
    return std::unexpected("malformed " + name + " digest '" + std::string(hex) + "'");
  }
  return FileHash{std::move(name), std::move(digest)};
}

Checked<std::vector<FileHash>> fragment_hashes(std::string_view fragment) {
  std::vector<FileHash> out;
  while (!fragment.empty()) {
    const auto amp = std::min(fragment.find('&'), fragment.size());
    const std::string_view part = fragment.substr(0, amp);
    fragment.remove_prefix(std::min(amp + 1, fragment.size()));
    const auto equals = part.find('=');
    // An empty value is no digest at all (the S3 index omits the fragment
    // when it has no checksum: pytorch/test-infra s3_management/manage.py); skip it like `#egg=`.
    if (equals == std::string_view::npos || equals + 1 == part.size()) continue;
    auto hash = make_hash(part.substr(0, equals), part.substr(equals + 1));
    if (!hash) return std::unexpected(hash.error() + " in the URL fragment");
    if (*hash) out.push_back(std::move(**hash));
  }
  return out;
}

Checked<CoreMetadata> core_metadata_attribute(std::string_view value) {
  // PEP 658 "Specification": the attribute's presence says the file exists;
  // its value is `<hashname>=<hashvalue>`, or `true` without a hash. PEP 714
  // clients also read `false` as absent (uv does the same).
  const std::string text = ascii_lower(value);
  if (text == "false") return CoreMetadata{};
  CoreMetadata out{true, std::nullopt};
  const auto equals = value.find('=');
  if (text == "true" || equals == std::string_view::npos) return out;
  auto hash = make_hash(value.substr(0, equals), value.substr(equals + 1));
  if (!hash) return std::unexpected(hash.error() + " for the core metadata file");
  out.hash = std::move(*hash);
  return out;
}

bool is_file_name(std::string_view name) {
  return !name.empty() && name != "." && name != ".." &&
         std::none_of(name.begin(), name.end(),
                      [](char c) { return c == '/' || c == '\\' || c == '\0'; });
}

std::string clean_url(std::string_view url) {
  static constexpr std::string_view k_hex = "0123456789ABCDEF";
  // The path starts after "scheme:" and "//authority" and ends at '?' or
  // '#' (RFC 3986 Appendix B); only there is `+` encoded.
  std::size_t path_begin = 0;
  std::size_t at = 0;
  while (at < url.size() && url[at] != ':' && url[at] != '/' && url[at] != '?' && url[at] != '#')
    ++at;
  if (at < url.size() && url[at] == ':') path_begin = at + 1;
  if (url.substr(path_begin).starts_with("//")) {
    path_begin += 2;
    while (path_begin < url.size() && url[path_begin] != '/' && url[path_begin] != '?' &&
           url[path_begin] != '#')
      ++path_begin;
  }
  std::size_t path_end = path_begin;
  while (path_end < url.size() && url[path_end] != '?' && url[path_end] != '#') ++path_end;

  std::string out;
  out.reserve(url.size() + 8);
  std::size_t copied = 0;  // url[copied, i) is yet to be appended as is
  for (std::size_t i = 0; i < url.size(); ++i) {
    const auto c = static_cast<unsigned char>(url[i]);
    if (allowed_in_uri(c) && (c != '+' || i < path_begin || i >= path_end)) continue;
    out.append(url.substr(copied, i - copied));
    const char escape[] = {'%', k_hex[c >> 4U], k_hex[c & 0x0FU]};
    out.append(escape, sizeof escape);
    copied = i + 1;
  }
  out.append(url.substr(copied));
  return out;
}

Checked<void> check_api_version(std::string_view version) {
  // PEP 629 "Specification": a client must refuse a major version it does
  // not know; a newer minor version stays readable. PEP 691 uses the same
  // numbers for `meta.api-version`.
  if (version == "1" || version.starts_with("1.")) return {};
  return std::unexpected("unsupported repository API version '" + std::string(version) +
                         "' (PEP 629): wheelmod reads version 1.x pages");
}

}  // namespace detail
}  // namespace wheelmod::index
