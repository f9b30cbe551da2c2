// Private to wheelmod_pep: Python's notion of whitespace over UTF-8 text.
// packaging's regular expressions use `\s` and `str.strip()`, which accept
// every code point for which str.isspace() is true, not only ASCII blanks;
// matching that keeps `Version(" 1.0\u3000")` and the C++ parse in step.
#pragma once

#include <cstddef>
#include <string_view>

namespace wheelmod::pep::detail {

/// Byte length of the whitespace code point starting at `pos` in UTF-8
/// `text` (str.isspace(): U+0009-000D, U+001C-0020, U+0085, U+00A0, U+1680,
/// U+2000-200A, U+2028, U+2029, U+202F, U+205F, U+3000), 0 if none.
inline std::size_t python_space_length(std::string_view text, std::size_t pos) {
  const auto byte = [&](std::size_t i) -> unsigned char {
    return pos + i < text.size() ? static_cast<unsigned char>(text[pos + i]) : 0U;
  };
  const unsigned char b0 = byte(0);
  if ((b0 >= 0x09 && b0 <= 0x0D) || (b0 >= 0x1C && b0 <= 0x20)) return 1;
  if (b0 == 0xC2 && (byte(1) == 0x85 || byte(1) == 0xA0)) return 2;
  if (b0 == 0xE1 && byte(1) == 0x9A && byte(2) == 0x80) return 3;
  if (b0 == 0xE2 && byte(1) == 0x80) {
    const unsigned char b2 = byte(2);
    if ((b2 >= 0x80 && b2 <= 0x8A) || b2 == 0xA8 || b2 == 0xA9 || b2 == 0xAF) return 3;
  }
  if (b0 == 0xE2 && byte(1) == 0x81 && byte(2) == 0x9F) return 3;
  if (b0 == 0xE3 && byte(1) == 0x80 && byte(2) == 0x80) return 3;
  return 0;
}

/// `text` without leading and trailing Python whitespace (str.strip()).
inline std::string_view strip_python_space(std::string_view text) {
  std::size_t begin = 0;
  while (const std::size_t n = python_space_length(text, begin)) begin += n;
  std::size_t end = begin;
  for (std::size_t pos = begin; pos < text.size();) {
    if (const std::size_t n = python_space_length(text, pos)) {
      pos += n;
    } else {
      end = ++pos;  // continuation bytes of a non-space code point are not spaces
    }
  }
  return text.substr(begin, end - begin);
}

/// Whether `text` holds any Python whitespace.
inline bool contains_python_space(std::string_view text) {
  for (std::size_t pos = 0; pos < text.size(); ++pos) {
    if (python_space_length(text, pos) != 0) return true;
  }
  return false;
}

}  // namespace wheelmod::pep::detail
