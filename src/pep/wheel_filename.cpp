#include "pep/wheel_filename.hpp"

#include <algorithm>
#include <charconv>
#include <utility>

#include "ascii.hpp"
#include "pep/name.hpp"

namespace wheelmod::pep {
namespace {

using detail::is_digit;

constexpr std::string_view k_suffix = ".whl";

bool is_word_or_dot(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.';
}

// wheelmod extension: download.pytorch.org writes the local-version `+` of
// its file names percent-encoded in hrefs (`torch-2.6.0%2Bcu126-...whl`), and
// a literal `+` in the URL path is refused (HTTP 403), so names taken from
// URLs carry `%2B`. Only that escape is decoded; packaging would reject it.
std::string decode_plus(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && text[i + 1] == '2' &&
        (text[i + 2] == 'B' || text[i + 2] == 'b')) {
      out += '+';
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

// PEP 427 "Escaping and Unicode": packaging checks `"__" not in name` and
// re.match(r"^[\w\d._]*$", name). Python's `$` also matches before one
// final newline, so "foo\n" passes there and here. `\w` is Unicode in
// Python; non-ASCII names are rejected here (real wheel names are ASCII).
bool is_valid_name_part(std::string_view name) {
  if (name.find("__") != std::string_view::npos) return false;
  if (!name.empty() && name.back() == '\n') name.remove_suffix(1);
  return std::ranges::all_of(name, is_word_or_dot);
}

// PEP 427 build tag, packaging's `(\d+)(.*)` with re.match: digits, then the
// rest up to the first newline (`.` stops there). ASCII digits only, and
// the number must fit in 64 bits (Python's int is unbounded).
Parsed<BuildTag> parse_build_tag(std::string_view text, const std::string& filename) {
  std::size_t digits = 0;
  while (digits < text.size() && is_digit(text[digits])) ++digits;
  if (digits == 0) {
    return std::unexpected(ParseError{
        filename, "build tag '" + std::string(text) + "' must start with a digit (PEP 427)"});
  }
  BuildTag build;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + digits, build.number);
  if (ec != std::errc{}) {
    return std::unexpected(ParseError{
        filename, "build number '" + std::string(text.substr(0, digits)) + "' is too large"});
  }
  const auto rest = text.substr(digits);
  build.suffix = std::string(rest.substr(0, rest.find('\n')));
  return build;
}

}  // namespace

// PEP 825 "Variant label": `^[0-9a-z_.]{1,16}$`.
bool is_variant_label(std::string_view text) {
  return !text.empty() && text.size() <= 16 && std::ranges::all_of(text, [](char c) {
    return is_digit(c) || (c >= 'a' && c <= 'z') || c == '_' || c == '.';
  });
}

// packaging.utils.parse_wheel_filename (23.0), step by step, with PEP 825's optional variant
// label: {distribution}-{version}(-{build tag})?-{python tag}-{abi tag}-{platform tag}
// (-{variant label})?.whl.
Parsed<WheelFilename> WheelFilename::parse(std::string_view filename) {
  const std::string original(filename);
  const auto fail = [&](std::string message) {
    return std::unexpected(ParseError{original, std::move(message)});
  };
  const std::string decoded = decode_plus(filename);
  std::string_view stem = decoded;
  if (!stem.ends_with(k_suffix)) return fail("a wheel file name must end in '.whl'");
  stem.remove_suffix(k_suffix.size());

  // name-version[-build]-python-abi-platform[-label]: 4 to 6 dashes, since no part may contain
  // one (PEP 427 escapes them to `_`). With 5, the third part decides: a build tag starts with a
  // digit (PEP 427), a Python tag never does (PEP 425), so a letter there means the last part is
  // a variant label.
  const auto dashes = static_cast<std::size_t>(std::ranges::count(stem, '-'));
  if (dashes < 4 || dashes > 6) {
    return fail(
        "expected 5 to 7 '-'-separated parts "
        "(name-version[-build]-python-abi-platform[-variant label]), got " +
        std::to_string(dashes + 1));
  }
  std::vector<std::string_view> parts;
  std::string_view rest = stem;
  while (true) {
    const auto dash = rest.find('-');
    parts.push_back(rest.substr(0, dash));
    if (dash == std::string_view::npos) break;
    rest.remove_prefix(dash + 1);
  }
  const bool has_build = dashes == 6 || (dashes == 5 && !parts[2].empty() && is_digit(parts[2][0]));
  const bool has_label = dashes == 6 || (dashes == 5 && !has_build);
  std::optional<std::string> label;
  if (has_label) {
    label = std::string(parts.back());
    if (!is_variant_label(*label))
      return fail("variant label '" + *label +
                  "' must be 1 to 16 of 0-9, a-z, '_' and '.' (PEP 825)");
    parts.pop_back();
  }
  // name, version, [build,] tag set. With a label, the Python tag must look like one (PEP 425:
  // the implementation's letters, py, cp, pp, ...), else `1-2-...` would pass as build + label.
  const auto python_tag = parts[parts.size() - 3];
  if (has_label &&
      (python_tag.empty() || is_digit(python_tag.front()) || python_tag.front() == '.'))
    return fail("Python tag '" + std::string(python_tag) +
                "' must start with a letter (PEP 425); a build tag comes right after the version");
  const std::string tag_set = std::string(parts[parts.size() - 3]) + "-" +
                              std::string(parts[parts.size() - 2]) + "-" +
                              std::string(parts.back());

  WheelFilename result;
  result.distribution = std::string(parts[0]);
  if (!is_valid_name_part(parts[0])) {
    return fail("invalid project name '" + result.distribution +
                "': only letters, digits, '_' and '.' are allowed, and no '__' (PEP 427)");
  }
  result.name = canonicalize_name(parts[0]);

  auto version = Version::parse(parts[1]);
  if (!version) return fail(version.error().describe("version"));
  result.version = std::move(*version);

  if (has_build) {
    auto build = parse_build_tag(parts[2], original);
    if (!build) return std::unexpected(std::move(build.error()));
    result.build = std::move(*build);
  }

  auto tags = parse_tag_set(tag_set);
  if (!tags) return fail(tags.error().describe("tag set"));
  result.tags = std::move(*tags);
  result.variant_label = std::move(label);
  return result;
}

}  // namespace wheelmod::pep
