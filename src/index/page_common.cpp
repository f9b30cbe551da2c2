// Hashes, core metadata values, URL clean-up and the duplicate-file rule,
// shared by the HTML and JSON page parsers.
#include "page_common.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

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

char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), ascii_lower);
  return out;
}

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

bool allowed_in_uri(unsigned char c) {
  // RFC 3986 §2.2 reserved, §2.3 unreserved, and '%' of §2.1 escapes.
  if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("-._~:/?#[]@!$&'()*+,;=%").find(static_cast<char>(c)) !=
         std::string_view::npos;
}

std::string merge_message(const Link& link, std::string_view what, const FileHash& first,
                          const FileHash& second) {
  return link.filename + " is listed twice with different " + std::string(what) + " " +
         first.algorithm + " digests: " + first.hex + " and " + second.hex + " (" + link.url + ")";
}

}  // namespace

Checked<std::optional<FileHash>> make_hash(std::string_view algorithm, std::string_view hex) {
  const std::string name = lower(algorithm);
  const auto known = std::find_if(k_algorithms.begin(), k_algorithms.end(),
                                  [&](const Algorithm& a) { return a.name == name; });
  if (known == k_algorithms.end()) return std::nullopt;
  const std::string digest = lower(hex);
  const bool hex_only = std::all_of(digest.begin(), digest.end(), is_hex);
  if (!hex_only || digest.size() < known->min_hex || digest.size() > known->max_hex ||
      digest.size() % 2 != 0) {
    // A digest that cannot be right: dropping it would quietly turn off
    // the check the page asked for, so say so instead.
    return std::unexpected("malformed " + name + " digest '" + std::string(hex) + "'");
  }
  return FileHash{name, digest};
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
  const std::string text = lower(value);
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
         name.find_first_of(std::string_view("/\\\0", 3)) == std::string_view::npos;
}

std::string clean_url(std::string_view url) {
  static constexpr std::string_view k_hex = "0123456789ABCDEF";
  // The path starts after "scheme:" and "//authority" and ends at '?' or
  // '#' (RFC 3986 Appendix B); only there is `+` encoded.
  std::size_t path_begin = 0;
  const auto colon = url.find_first_of(":/?#");
  if (colon != std::string_view::npos && url[colon] == ':') path_begin = colon + 1;
  if (url.substr(path_begin).starts_with("//")) {
    path_begin = std::min(url.find_first_of("/?#", path_begin + 2), url.size());
  }
  const std::size_t path_end = std::min(url.find_first_of("?#", path_begin), url.size());

  std::string out;
  out.reserve(url.size());
  for (std::size_t i = 0; i < url.size(); ++i) {
    const auto c = static_cast<unsigned char>(url[i]);
    const bool plus_in_path = c == '+' && i >= path_begin && i < path_end;
    if (allowed_in_uri(c) && !plus_in_path) {
      out.push_back(url[i]);
    } else {
      out.push_back('%');
      out.push_back(k_hex[c >> 4U]);
      out.push_back(k_hex[c & 0x0FU]);
    }
  }
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

Checked<void> LinkList::add(Link link) {
  // A file is its URL. The real index has listed one file twice: harmless
  // when the entries agree, but one URL with two digests leaves no safe
  // choice. One name under two URLs is two files: the prefix-root page
  // /whl/<project>/ lists e.g. the cpu and the cu126 builds of
  // torchaudio-2.6.0-cp312-cp312-linux_aarch64.whl.
  const auto [it, inserted] = m_by_url.try_emplace(link.url, m_links.size());
  if (inserted) {
    m_links.push_back(std::move(link));
    return {};
  }
  Link& first = m_links[it->second];
  for (auto& hash : link.hashes) {
    const auto same =
        std::find_if(first.hashes.begin(), first.hashes.end(),
                     [&](const FileHash& h) { return h.algorithm == hash.algorithm; });
    if (same == first.hashes.end()) {
      first.hashes.push_back(std::move(hash));
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
  if (!first.core_metadata_hash) first.core_metadata_hash = std::move(link.core_metadata_hash);
  if (!first.requires_python) first.requires_python = std::move(link.requires_python);
  if (!first.yanked) first.yanked = std::move(link.yanked);
  if (!first.size) first.size = link.size;
  if (!first.upload_time) first.upload_time = std::move(link.upload_time);
  return {};
}

}  // namespace detail
}  // namespace wheelmod::index
