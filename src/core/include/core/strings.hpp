// Text helpers every layer needs, written once: ASCII case (names, schemes, headers and options
// are ASCII-case-insensitive; the C locale's tolower would also fold bytes a locale calls letters),
// joining, and a version's X.Y.
#pragma once

#include <string>
#include <string_view>

namespace wheelmod {

/// `c` with A-Z made a-z; every other byte as it is.
constexpr char ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}
/// `c` with a-z made A-Z; every other byte as it is.
constexpr char ascii_upper(char c) {
  return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
}

/// `text` with A-Z made a-z.
std::string ascii_lower(std::string_view text);
/// `text` with a-z made A-Z.
std::string ascii_upper(std::string_view text);
/// Whether `a` and `b` are equal but for ASCII case.
bool iequals(std::string_view a, std::string_view b);
/// Whether `text` starts with `prefix`, but for ASCII case.
bool istarts_with(std::string_view text, std::string_view prefix);

/// The items with `separator` between them ("a, b, c"); "" for none.
template <class Range>
std::string join(const Range& items, std::string_view separator) {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out += separator;
    out += item;
    first = false;
  }
  return out;
}

/// The first two dot-separated parts of a version: "3.12.3" -> "3.12", "3.12" -> "3.12",
/// "3" -> "3" (a Python module's version to the X.Y of lib/pythonX.Y and of wheel tags).
std::string major_minor(std::string_view version);

/// `text` safe to print on a terminal or in a log line: control bytes (C0, DEL) and bytes
/// outside ASCII written as `\xNN`, a backslash as `\\`. Text from an index or a wheel can
/// hold escape sequences, carriage returns and line breaks that would rewrite what is shown.
std::string printable(std::string_view text);

/// The length of the UTF-8 character `text` starts with (1 for ASCII), 0 when it is no valid
/// one (RFC 3629: no overlong forms, no surrogates) or `text` is empty.
std::size_t utf8_length(std::string_view text);

/// `text` for a terminal, keeping what is meant to be read: valid UTF-8 stays as is, backslashes
/// too; control characters (C0 but tab and line feed, DEL, the C1 range U+0080-U+009F, the line
/// and paragraph separators U+2028/9) and bytes that are not UTF-8 are written as `\xNN`.
std::string terminal_text(std::string_view text);

}  // namespace wheelmod
