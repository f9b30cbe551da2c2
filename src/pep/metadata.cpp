// Core metadata headers, read as Python's email.parser (compat32 policy)
// reads them, which is what pip and importlib.metadata use.
#include "pep/metadata.hpp"

#include <algorithm>

#include "ascii.hpp"

namespace wheelmod::pep {

namespace {

using detail::to_lower;

bool iequals(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](char x, char y) { return to_lower(x) == to_lower(y); });
}

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

/// feedparser's headerRE `^(From |[\041-\071\073-\176]*:|[\t ])`: whether
/// `line` still belongs to the header block.
bool is_header_block_line(std::string_view line) {
  if (line.starts_with("From ") || line.starts_with(' ') || line.starts_with('\t')) return true;
  for (char c : line) {
    if (c == ':') return true;
    if (c < '\x21' || c > '\x7e') return false;
  }
  return false;
}

struct RawHeader {
  std::string name;
  std::string value;
  std::size_t line = 0;  // 1-based line of the field name
};

/// The header block: lines end with \r\n, \r or \n (feedparser's NLCRE);
/// it ends at an empty line or at the first line that is not a header.
/// Continuation lines (leading space or tab) join their field with one
/// space; a continuation with no field before it, a line starting with ':'
/// and envelope `From ` lines are skipped, as email.parser does.
std::vector<RawHeader> read_headers(std::string_view text) {
  std::vector<RawHeader> headers;
  bool open_field = false;  // whether a continuation line extends headers.back()
  std::size_t line_number = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t end = std::min(text.find_first_of("\r\n", pos), text.size());
    const std::string_view line = text.substr(pos, end - pos);
    pos = end;
    if (pos < text.size()) pos += text.substr(pos).starts_with("\r\n") ? 2u : 1u;
    ++line_number;
    if (line.empty() || !is_header_block_line(line)) break;
    if (line.front() == ' ' || line.front() == '\t') {
      if (open_field) headers.back().value += " " + std::string(trim(line));
      continue;
    }
    open_field = false;
    if (line.starts_with("From ")) continue;
    const std::size_t colon = line.find(':');
    if (colon == 0) continue;  // "Missing header name" defect
    std::string_view value = line.substr(colon + 1);
    value.remove_prefix(std::min(value.find_first_not_of(" \t"), value.size()));
    headers.push_back(
        RawHeader{std::string(line.substr(0, colon)), std::string(value), line_number});
    open_field = true;
  }
  return headers;
}

ParseError missing(std::string_view field) {
  return ParseError{std::string(field),
                    "required field is missing (core metadata needs Metadata-Version, Name and "
                    "Version)"};
}

}  // namespace

Parsed<CoreMetadata> CoreMetadata::parse(std::string_view text) {
  const std::vector<RawHeader> raw = read_headers(text);
  const auto first = [&](std::string_view field) -> const RawHeader* {
    const auto found =
        std::ranges::find_if(raw, [&](const RawHeader& h) { return iequals(h.name, field); });
    return found == raw.end() ? nullptr : &*found;
  };

  CoreMetadata metadata;
  const RawHeader* metadata_version = first("Metadata-Version");
  const RawHeader* name = first("Name");
  const RawHeader* version = first("Version");
  if (metadata_version == nullptr || trim(metadata_version->value).empty())
    return std::unexpected(missing("Metadata-Version"));
  if (name == nullptr || trim(name->value).empty()) return std::unexpected(missing("Name"));
  if (version == nullptr || trim(version->value).empty())
    return std::unexpected(missing("Version"));
  metadata.metadata_version = std::string(trim(metadata_version->value));
  metadata.name = std::string(trim(name->value));
  auto parsed_version = Version::parse(version->value);
  if (!parsed_version) {
    return std::unexpected(ParseError{version->value, "Version on line " +
                                                          std::to_string(version->line) + ": " +
                                                          parsed_version.error().message});
  }
  metadata.version = std::move(*parsed_version);

  if (const RawHeader* requires_python = first("Requires-Python")) {
    auto specifier = SpecifierSet::parse(requires_python->value);
    if (!specifier) {
      return std::unexpected(
          ParseError{requires_python->value, "Requires-Python on line " +
                                                 std::to_string(requires_python->line) + ": " +
                                                 specifier.error().message});
    }
    metadata.requires_python = std::move(*specifier);
  }
  for (const RawHeader& header : raw) {
    if (iequals(header.name, "Requires-Dist")) {
      auto requirement = Requirement::parse(header.value);
      if (!requirement) {
        return std::unexpected(ParseError{header.value, "Requires-Dist on line " +
                                                            std::to_string(header.line) + ": " +
                                                            requirement.error().message});
      }
      metadata.requires_dist.push_back(std::move(*requirement));
    } else if (iequals(header.name, "Provides-Extra")) {
      metadata.provides_extra.emplace_back(trim(header.value));
    }
    metadata.headers.emplace_back(header.name, header.value);
  }
  return metadata;
}

std::vector<std::string_view> CoreMetadata::values(std::string_view field) const {
  std::vector<std::string_view> found;
  for (const auto& [header_name, value] : headers)
    if (iequals(header_name, field)) found.emplace_back(value);
  return found;
}

}  // namespace wheelmod::pep
