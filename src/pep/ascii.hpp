// Private to wheelmod_pep: the ASCII character classes the packaging grammars
// are written in. PEP 440's regular expression, PEP 503's normalisation,
// PEP 508's identifiers and the wheel filename all name ASCII letters and
// digits; a locale's <cctype> would also accept bytes it calls letters.
// (wheelmod_pep links nothing, so it does not borrow core/strings.hpp.)
#pragma once

#include <string>
#include <string_view>

namespace wheelmod::pep::detail {

constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
constexpr bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
constexpr bool is_alnum(char c) { return is_digit(c) || is_alpha(c); }
/// The separators PEP 503 folds into one `-`: `-`, `_` and `.`.
constexpr bool is_separator(char c) { return c == '-' || c == '_' || c == '.'; }
/// `c` with A-Z made a-z; every other byte (UTF-8 included) as it is.
constexpr char to_lower(char c) {
  return is_alpha(c) && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

/// `text` with A-Z made a-z. packaging lower-cases Unicode too; text that
/// only differs there is not a valid name, version or tag anyway.
inline std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = to_lower(c);
  return out;
}

}  // namespace wheelmod::pep::detail
