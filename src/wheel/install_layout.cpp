#include "install_layout.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <optional>
#include <utility>
#include <vector>

#include "core/strings.hpp"
#include "pep/name.hpp"
#include "pep/version.hpp"

namespace wheelmod::wheel {

namespace {

constexpr std::string_view k_dist_info_suffix = ".dist-info";

bool is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

std::string_view trim_header_blanks(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

std::optional<std::uint32_t> parse_number(std::string_view text) {
  std::uint32_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// `{name}-{version}` matches when some `-` splits it into parts equal to the
// wheel's after normalisation (a raw version may itself contain `-`).
bool stem_matches(std::string_view stem, const pep::WheelFilename& wheel) {
  for (std::size_t dash = stem.find('-'); dash != std::string_view::npos;
       dash = stem.find('-', dash + 1)) {
    if (pep::canonicalize_name(stem.substr(0, dash)) != wheel.name) continue;
    const auto version = pep::Version::parse(stem.substr(dash + 1));
    if (version && *version == wheel.version) return true;
  }
  return false;
}

}  // namespace

std::expected<MemberPath, std::string> check_member_name(std::string_view name) {
  if (name.empty()) return std::unexpected("empty name");
  for (const char c : name) {
    if (is_control(static_cast<unsigned char>(c))) {
      return std::unexpected("control character in the name");
    }
    if (c == '\\') return std::unexpected("backslash in the name (zip names use '/')");
  }
  if (name.front() == '/') return std::unexpected("absolute path");
  // `C:x` is a drive path to Windows tools (Python's zipfile strips it).
  if (name.size() >= 2 && name[1] == ':' &&
      ((name[0] >= 'A' && name[0] <= 'Z') || (name[0] >= 'a' && name[0] <= 'z'))) {
    return std::unexpected("absolute path (drive letter)");
  }
  MemberPath out;
  out.directory = name.back() == '/';
  std::size_t begin = 0;
  while (begin <= name.size()) {
    const auto end = std::min(name.find('/', begin), name.size());
    const auto part = name.substr(begin, end - begin);
    begin = end + 1;
    if (part.empty() || part == ".") continue;  // `a//b`, `./a`: the same file as `a/b`, `a`
    if (part == "..") return std::unexpected("'..' component (the path leaves its directory)");
    if (!out.path.empty()) out.path += '/';
    out.path += part;
  }
  if (out.path.empty()) return std::unexpected("empty name");
  return out;
}

std::string printable(std::string_view name) {
  std::string out;
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (is_control(byte)) {
      std::array<char, 5> hex{};
      std::snprintf(hex.data(), hex.size(), "\\x%02x", static_cast<unsigned>(byte));
      out += hex.data();
    } else {
      out += c;
    }
  }
  return out;
}

std::expected<std::string, std::string> find_dist_info(std::span<const std::string> top_level,
                                                       const pep::WheelFilename& wheel) {
  std::vector<std::string> found;
  for (const auto& dir : top_level) {
    if (dir.ends_with(k_dist_info_suffix)) found.push_back(dir);
  }
  if (found.empty()) return std::unexpected("no .dist-info directory");
  if (found.size() > 1) {
    std::string names;
    for (const auto& dir : found) names += (names.empty() ? "" : ", ") + printable(dir);
    return std::unexpected("more than one .dist-info directory: " + names);
  }
  const std::string_view stem =
      std::string_view(found.front()).substr(0, found.front().size() - k_dist_info_suffix.size());
  if (!stem_matches(stem, wheel)) {
    return std::unexpected("'" + printable(found.front()) + "' does not belong to " + wheel.name +
                           " " + wheel.version.str() + " as the file name says");
  }
  return found.front();
}

std::expected<WheelInfo, std::string> parse_wheel_info(std::string_view text) {
  WheelInfo info;
  bool have_version = false;
  while (!text.empty()) {
    const auto end = std::min(text.find('\n'), text.size());
    const auto line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    if (trim_header_blanks(line).empty()) break;  // headers end at the first empty line
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const auto key = trim_header_blanks(line.substr(0, colon));
    const auto value = trim_header_blanks(line.substr(colon + 1));
    if (iequals(key, "Wheel-Version") && !have_version) {
      const auto dot = value.find('.');
      const auto major = parse_number(value.substr(0, dot));
      const auto minor = dot == std::string_view::npos ? std::optional<std::uint32_t>{}
                                                       : parse_number(value.substr(dot + 1));
      if (!major || !minor) {
        return std::unexpected("Wheel-Version '" + std::string(value) + "' is not MAJOR.MINOR");
      }
      info.major = *major;
      info.minor = *minor;
      have_version = true;
    } else if (iequals(key, "Root-Is-Purelib")) {
      info.root_is_purelib = iequals(value, "true");
    }
  }
  if (!have_version) return std::unexpected("no Wheel-Version");
  return info;
}

std::expected<Placement, std::string> place_member(std::string_view path, std::string_view data_dir,
                                                   SchemeKey root_key) {
  if (!(path.size() > data_dir.size() && path.starts_with(data_dir) &&
        path[data_dir.size()] == '/')) {
    return Placement{root_key, std::string(path)};
  }
  const auto rest = path.substr(data_dir.size() + 1);
  const auto slash = rest.find('/');
  if (slash == std::string_view::npos) {
    return std::unexpected("file in the .data directory outside any scheme directory");
  }
  static constexpr std::array<std::pair<std::string_view, SchemeKey>, 5> k_keys{{
      {"purelib", SchemeKey::purelib},
      {"platlib", SchemeKey::platlib},
      {"scripts", SchemeKey::scripts},
      {"headers", SchemeKey::headers},
      {"data", SchemeKey::data},
  }};
  const auto key = rest.substr(0, slash);
  for (const auto& [name, value] : k_keys) {
    if (name == key) return Placement{value, std::string(rest.substr(slash + 1))};
  }
  return std::unexpected("unknown scheme directory '" + printable(key) +
                         "' in .data (purelib, platlib, scripts, headers, data)");
}

}  // namespace wheelmod::wheel
