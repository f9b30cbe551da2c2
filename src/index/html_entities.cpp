// html.unescape (CPython Lib/html/__init__.py) on UTF-8 bytes: the same
// matches, in the same order, with the same replacements. Where it departs
// from the HTML Living Standard it is followed, not the standard: pip reads
// hrefs through it (see the header of html_anchors.hpp).
#include "html_entities.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace wheelmod::index::html {

namespace {

struct NamedReference {
  std::string_view name;
  std::string_view text;  // UTF-8
};

constexpr NamedReference k_named[] = {
#include "html_entities.inc"
};

// A name of 32 characters at most (CounterClockwiseContourIntegral;), as
// html.unescape's pattern `[^\t\n\f <&#;]{1,32};?` reads.
constexpr std::size_t k_longest_name = 32;

std::optional<std::string_view> named(std::string_view name) {
  const auto* end = std::end(k_named);
  const auto* found = std::lower_bound(
      std::begin(k_named), end, name,
      [](const NamedReference& row, std::string_view wanted) { return row.name < wanted; });
  if (found == end || found->name != name) return std::nullopt;
  return found->text;
}

void append_utf8(std::uint32_t code, std::string& out) {
  if (code < 0x80) {
    out.push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code >> 6)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else if (code < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (code >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (code >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  }
}

// HTML "Numeric character reference end state": 0x80-0x9F are read as
// windows-1252 (html.unescape's _invalid_charrefs); the five it leaves
// undefined stay themselves.
constexpr std::array<std::uint16_t, 32> k_windows_1252{
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178};

constexpr std::uint32_t k_replacement = 0xFFFD;
constexpr std::uint32_t k_past_unicode = 0x110000;

// html.unescape's _invalid_codepoints: C0 controls but tab, LF, FF and CR,
// DEL and C1, the noncharacters. It drops them (the standard keeps them).
bool dropped(std::uint32_t code) {
  return (code >= 0x01 && code <= 0x08) || code == 0x0B || (code >= 0x0E && code <= 0x1F) ||
         (code >= 0x7F && code <= 0x9F) || (code >= 0xFDD0 && code <= 0xFDEF) ||
         (code & 0xFFFE) == 0xFFFE;
}

void append_numeric(std::uint32_t code, std::string& out) {
  if (code == 0x00) {
    append_utf8(k_replacement, out);
  } else if (code == 0x0D) {
    out.push_back('\r');
  } else if (code >= 0x80 && code <= 0x9F) {
    append_utf8(k_windows_1252[code - 0x80], out);
  } else if ((code >= 0xD800 && code <= 0xDFFF) || code >= k_past_unicode) {
    append_utf8(k_replacement, out);
  } else if (!dropped(code)) {
    append_utf8(code, out);
  }
}

int digit_value(char c, std::uint32_t base) {
  if (c >= '0' && c <= '9') return c - '0';
  if (base == 16 && c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (base == 16 && c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// `&#...`: decimal or hex digits and an optional ';' at `at` (just past
// "&#"); npos when neither alternative of the pattern matches.
std::size_t numeric_reference(std::string_view text, std::size_t at, std::string& out) {
  std::uint32_t base = 10;
  if (at < text.size() && (text[at] == 'x' || text[at] == 'X') && at + 1 < text.size() &&
      digit_value(text[at + 1], 16) >= 0) {
    base = 16;
    ++at;
  } else if (at >= text.size() || digit_value(text[at], 10) < 0) {
    return std::string_view::npos;
  }
  // Python's int() has no limit; any value past U+10FFFF gets U+FFFD.
  std::uint32_t code = 0;
  for (int digit = 0; at < text.size() && (digit = digit_value(text[at], base)) >= 0; ++at) {
    code = std::min(code * base + static_cast<std::uint32_t>(digit), k_past_unicode);
  }
  if (at < text.size() && text[at] == ';') ++at;
  append_numeric(code, out);
  return at;
}

bool ends_name(char c) {
  return c == '\t' || c == '\n' || c == '\f' || c == ' ' || c == '<' || c == '&' || c == '#' ||
         c == ';';
}

bool utf8_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// `&name`: up to 32 characters that cannot end a name, and an optional ';'
// at `at` (just past '&'); npos when there is not one such character.
std::size_t named_reference(std::string_view text, std::size_t at, std::string& out) {
  std::size_t end = at;
  std::size_t characters = 0;
  std::size_t ascii = 0;  // leading ASCII characters: only they can spell a name of the table
  for (; end < text.size() && !ends_name(text[end]); ++end) {
    if (utf8_continuation(text[end])) continue;
    if (characters == k_longest_name) break;
    if (ascii == characters && static_cast<unsigned char>(text[end]) < 0x80) ++ascii;
    ++characters;
  }
  if (characters == 0) return std::string_view::npos;
  if (end < text.size() && text[end] == ';') {
    ++end;
    ++characters;
    if (ascii + 1 == characters) ++ascii;
  }
  const std::string_view name = text.substr(at, end - at);
  if (const auto replacement = named(name)) {
    out.append(*replacement);
    return end;
  }
  // "the longest matching name (as defined by the standard)": prefixes
  // from one character shorter than the name down to two characters.
  for (std::size_t size = std::min(characters - 1, ascii); size >= 2; --size) {
    if (const auto replacement = named(name.substr(0, size))) {
      out.append(*replacement);
      out.append(name.substr(size));
      return end;
    }
  }
  out.push_back('&');
  out.append(name);
  return end;
}

}  // namespace

void append_unescaped(std::string_view text, std::string& out) {
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t amp = text.find('&', at);
    if (amp == std::string_view::npos) break;
    out.append(text.substr(at, amp - at));
    const std::size_t next = amp + 1;
    const std::size_t end = next < text.size() && text[next] == '#'
                                ? numeric_reference(text, next + 1, out)
                                : named_reference(text, next, out);
    if (end == std::string_view::npos) {
      out.push_back('&');  // no reference: the pattern's search goes on after the '&'
      at = next;
    } else {
      at = end;
    }
  }
  if (at < text.size()) out.append(text.substr(at));
}

std::string_view unescaped(std::string_view text, std::string& scratch) {
  if (text.find('&') == std::string_view::npos) return text;
  scratch.clear();
  append_unescaped(text, scratch);
  return scratch;
}

}  // namespace wheelmod::index::html
