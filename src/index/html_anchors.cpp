// html.parser's tokenizer (CPython 3.11 Lib/html/parser.py and
// Lib/_markupbase.py), for one feed() without close(), as pip calls it. Each
// function names the method or pattern it follows; the patterns are
// backtracking regular expressions, so where a pattern gives characters back
// the code says which and why.
#include "html_anchors.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

namespace wheelmod::index::html {

namespace {

constexpr std::size_t npos = std::string_view::npos;

bool ascii_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
unsigned byte_at(std::string_view s, std::size_t at) {
  return at < s.size() ? static_cast<unsigned char>(s[at]) : 0U;
}

// The length of the Python whitespace character (str.isspace, the `\s` of a
// str pattern) that starts at `at`, 0 when there is none. Past U+007F only
// these: U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F,
// U+205F, U+3000.
std::size_t non_ascii_space_at(std::string_view s, std::size_t at) {
  const unsigned c = byte_at(s, at);
  const unsigned b1 = byte_at(s, at + 1);
  const unsigned b2 = byte_at(s, at + 2);
  switch (c) {
    case 0xC2:
      return b1 == 0x85 || b1 == 0xA0 ? 2 : 0;
    case 0xE1:
      return b1 == 0x9A && b2 == 0x80 ? 3 : 0;
    case 0xE2:
      if (b1 == 0x80)
        return (b2 >= 0x80 && b2 <= 0x8A) || b2 == 0xA8 || b2 == 0xA9 || b2 == 0xAF ? 3 : 0;
      return b1 == 0x81 && b2 == 0x9F ? 3 : 0;
    case 0xE3:
      return b1 == 0x80 && b2 == 0x80 ? 3 : 0;
    default:
      return 0;
  }
}

inline std::size_t space_at(std::string_view s, std::size_t at) {
  const unsigned c = byte_at(s, at);
  if (c < 0x80) return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) ? 1 : 0;
  return c >= 0xC2 ? non_ascii_space_at(s, at) : 0;
}

// The length of the whitespace character that ends just before `at`, 0
// when none does (a lead byte C2/E1-E3 is never inside another character).
std::size_t space_before(std::string_view s, std::size_t at) {
  if (at >= 1 && byte_at(s, at - 1) < 0x80) return space_at(s, at - 1);
  if (at >= 2 && space_at(s, at - 2) == 2) return 2;
  if (at >= 3 && space_at(s, at - 3) == 3) return 3;
  return 0;
}

std::size_t skip_spaces(std::string_view s, std::size_t at) {
  while (const std::size_t size = space_at(s, at)) at += size;
  return at;
}

// `(?:\s|/(?!>))*`: the separator after a tag name and after an attribute.
std::size_t skip_separators(std::string_view s, std::size_t at) {
  while (true) {
    if (const std::size_t size = space_at(s, at)) {
      at += size;
    } else if (at < s.size() && s[at] == '/' && byte_at(s, at + 1) != '>') {
      ++at;
    } else {
      return at;
    }
  }
}

// `[a-zA-Z][^\t\n\r\f />\x00]*` at `at` (the letter already checked): its end.
std::size_t tag_name_end(std::string_view s, std::size_t at) {
  for (++at; at < s.size(); ++at) {
    switch (s[at]) {
      case '\t':
      case '\n':
      case '\r':
      case '\f':
      case ' ':
      case '/':
      case '>':
      case '\0':
        return at;
      default:
        break;
    }
  }
  return at;
}

// Lower-cased `name` is "script" or "style" (html.parser's
// CDATA_CONTENT_ELEMENTS), "a", "base" or "meta".
enum class Tag { a, base, meta, script, style, other };

Tag tag_of(std::string_view name) {
  if (name_is(name, "a")) return Tag::a;
  if (name_is(name, "base")) return Tag::base;
  if (name_is(name, "meta")) return Tag::meta;
  if (name_is(name, "script")) return Tag::script;
  if (name_is(name, "style")) return Tag::style;
  return Tag::other;
}

class Reader {
 public:
  Reader(std::string_view page, Handler& handler) : m_s(page), m_handler(handler) {}

  void run();

 private:
  std::size_t find_quote(char quote, std::size_t from);
  std::size_t match_value(std::size_t name_end, Attribute* out);
  std::size_t match_attribute(std::size_t at, Attribute* out);
  std::size_t whole_start_tag(std::size_t name_end, std::size_t& attributes_end);
  std::size_t parse_starttag(std::size_t i);
  std::size_t parse_endtag(std::size_t i);
  std::size_t find_raw_text_end(std::size_t from) const;
  std::size_t parse_comment(std::size_t i) const;
  std::size_t parse_marked_section(std::size_t i) const;
  std::size_t parse_html_declaration(std::size_t i) const;
  std::size_t find_gt(std::size_t from) const;
  bool text_withheld(std::size_t i) const;

  std::string_view m_s;
  Handler& m_handler;
  Tag m_raw_text = Tag::other;  // script or style while in its raw text (html.parser cdata_elem)
  std::vector<Attribute> m_attributes;
  // From where on the page holds no ' and no " (a quoted value that never closes searches to
  // the end; remembered, so that many such values cost one search).
  std::array<std::size_t, 2> m_no_quote_from{npos, npos};
};

std::size_t Reader::find_quote(char quote, std::size_t from) {
  std::size_t& none_from = m_no_quote_from[quote == '"' ? 1 : 0];
  if (from >= none_from) return npos;
  const std::size_t found = m_s.find(quote, from);
  if (found == npos) none_from = from;
  return found;
}

// `\s*=+\s*('[^']*'|"[^"]*"|(?![\'"])[^>\s]*)` after an attribute name: the
// end of the value, or npos when the group does not match (no value).
std::size_t Reader::match_value(std::size_t name_end, Attribute* out) {
  const std::size_t equals = skip_spaces(m_s, name_end);
  if (equals >= m_s.size() || m_s[equals] != '=') return npos;
  std::size_t after_equals = equals;
  while (after_equals < m_s.size() && m_s[after_equals] == '=') ++after_equals;
  const auto unquoted = [&](std::size_t from) {
    std::size_t end = from;
    while (end < m_s.size() && m_s[end] != '>' && space_at(m_s, end) == 0) ++end;
    if (out != nullptr) out->value = m_s.substr(from, end - from);
    return end;
  };
  const std::size_t value = skip_spaces(m_s, after_equals);
  const char first = value < m_s.size() ? m_s[value] : '\0';
  if (first != '\'' && first != '"') return unquoted(value);
  if (const std::size_t close = find_quote(first, value + 1); close != npos) {
    if (out != nullptr) out->value = m_s.substr(value + 1, close - value - 1);
    return close + 1;
  }
  // A quote that never closes: the pattern backtracks. First the `\s*`
  // before the value gives back its last space, where `[^>\s]*` matches
  // nothing: an empty value.
  if (value > after_equals) {
    const std::size_t space = value - space_before(m_s, value);
    if (out != nullptr) out->value = m_s.substr(space, 0);
    return space;
  }
  // Then `=+` gives back one '=', which starts a bare value (`a=='x` is "='x").
  if (after_equals - equals >= 2) return unquoted(after_equals - 1);
  return npos;
}

// attrfind_tolerant (and the same group of locatestarttagend_tolerant):
// `((?<=['"\s/])[^\s/>][^\s/=>]*)(VALUE)?(?:\s|/(?!>))*` at `at`; its end,
// or npos.
std::size_t Reader::match_attribute(std::size_t at, Attribute* out) {
  if (at == 0 || at >= m_s.size()) return npos;
  const char before = m_s[at - 1];
  if (before != '\'' && before != '"' && before != '/' && space_before(m_s, at) == 0) return npos;
  if (m_s[at] == '/' || m_s[at] == '>' || space_at(m_s, at) != 0) return npos;
  std::size_t name_end = at + 1;
  while (name_end < m_s.size()) {
    const char c = m_s[name_end];
    if (c == '/' || c == '=' || c == '>' || space_at(m_s, name_end) != 0) break;
    ++name_end;
  }
  if (out != nullptr) *out = Attribute{m_s.substr(at, name_end - at), std::nullopt};
  const std::size_t value_end = match_value(name_end, out);
  return skip_separators(m_s, value_end == npos ? name_end : value_end);
}

// check_for_whole_start_tag with locatestarttagend_tolerant: where the tag
// whose name ends at `name_end` ends, or npos when html.parser waits for more input (which, without
// close(), never comes). Its attributes go to m_attributes, and
// `attributes_end` is where parse_starttag's attrfind loop stops: that loop
// matches the same attributes (after the name, `[\s/]*` and
// `(?:\s|/(?!>))*` differ only on a '/' just before '>', where no attribute
// starts), so one pass reads both.
std::size_t Reader::whole_start_tag(std::size_t name_end, std::size_t& attributes_end) {
  std::size_t j = name_end;
  while (true) {  // `[\s/]*`
    if (const std::size_t size = space_at(m_s, j)) {
      j += size;
    } else if (j < m_s.size() && m_s[j] == '/') {
      ++j;
    } else {
      break;
    }
  }
  m_attributes.clear();
  attributes_end = skip_separators(m_s, name_end);  // tagfind_tolerant's end
  Attribute attribute;
  for (std::size_t end; (end = match_attribute(j, &attribute)) != npos;) {
    m_attributes.push_back(attribute);
    j = attributes_end = end;
  }
  j = skip_spaces(m_s, j);
  if (j >= m_s.size()) return npos;
  const char next = m_s[j];
  if (next == '>') return j + 1;
  if (next == '/') return byte_at(m_s, j + 1) == '>' ? j + 2 : npos;
  if (ascii_letter(next) || next == '=') return npos;
  return j;  // "bogus input": the tag ends here and becomes text
}

// parse_starttag.
std::size_t Reader::parse_starttag(std::size_t i) {
  const std::size_t name_end = tag_name_end(m_s, i + 1);
  std::size_t k = 0;
  const std::size_t endpos = whole_start_tag(name_end, k);
  if (endpos == npos) return npos;
  const Tag tag = tag_of(m_s.substr(i + 1, name_end - i - 1));
  // `rawdata[k:endpos].strip()` must be ">" or "/>"; else the tag is text.
  std::string_view rest = k < endpos ? m_s.substr(k, endpos - k) : std::string_view();
  const std::size_t begin = skip_spaces(rest, 0);
  std::size_t end = rest.size();
  while (end > begin && space_before(rest, end) != 0) end -= space_before(rest, end);
  rest = rest.substr(begin, end - begin);
  if (rest != ">" && rest != "/>") {
    m_handler.text(m_s.substr(i, endpos - i), true);
    return endpos;
  }
  if (tag == Tag::a || tag == Tag::base || tag == Tag::meta) {
    const Element element = tag == Tag::a      ? Element::a
                            : tag == Tag::base ? Element::base
                                               : Element::meta;
    m_handler.start_tag(element, m_attributes);
  }
  if (rest == "/>") {
    if (tag == Tag::a) m_handler.end_anchor();  // handle_startendtag: start, then end
  } else if (tag == Tag::script || tag == Tag::style) {
    m_raw_text = tag;  // set_cdata_mode
  }
  return endpos;
}

// parse_endtag (endtagfind, then tagfind_tolerant).
std::size_t Reader::parse_endtag(std::size_t i) {
  const std::size_t gt = find_gt(i + 1);
  if (gt == npos) return npos;
  const std::size_t gtpos = gt + 1;
  // endtagfind: `</\s*([a-zA-Z][-.a-zA-Z0-9:_]*)\s*>`
  const std::size_t name = skip_spaces(m_s, i + 2);
  if (name < m_s.size() && ascii_letter(m_s[name])) {
    std::size_t name_end = name + 1;
    while (name_end < m_s.size() &&
           (ascii_letter(m_s[name_end]) || (m_s[name_end] >= '0' && m_s[name_end] <= '9') ||
            m_s[name_end] == '-' || m_s[name_end] == '.' || m_s[name_end] == ':' ||
            m_s[name_end] == '_'))
      ++name_end;
    if (skip_spaces(m_s, name_end) == gt) {
      const Tag tag = tag_of(m_s.substr(name, name_end - name));
      if (m_raw_text != Tag::other && tag != m_raw_text) {
        m_handler.text(m_s.substr(i, gtpos - i), true);
        return gtpos;
      }
      if (tag == Tag::a) m_handler.end_anchor();
      m_raw_text = Tag::other;  // clear_cdata_mode, after any end tag
      return gtpos;
    }
  }
  if (m_raw_text != Tag::other) {
    m_handler.text(m_s.substr(i, gtpos - i), true);
    return gtpos;
  }
  if (i + 2 >= m_s.size() || !ascii_letter(m_s[i + 2])) {
    // "</>" is nothing; anything else a bogus comment up to the first '>'.
    return m_s.substr(i, 3) == "</>" ? i + 3 : gtpos;
  }
  // `</a x="y">`: the name, then whatever up to the first '>'.
  const std::size_t name_end = tag_name_end(m_s, i + 2);
  if (tag_of(m_s.substr(i + 2, name_end - i - 2)) == Tag::a) m_handler.end_anchor();
  return gtpos;
}

// The interesting pattern of set_cdata_mode, `</\s*script\s*>` with
// re.IGNORECASE: Python's case folding also takes U+017F (long s) for 's'
// and U+0130, U+0131 (dotted and dotless I) for 'i'.
std::size_t Reader::find_raw_text_end(std::size_t from) const {
  const std::string_view name = m_raw_text == Tag::script ? "script" : "style";
  for (std::size_t at = from; (at = m_s.find("</", at)) != npos; ++at) {
    std::size_t p = skip_spaces(m_s, at + 2);
    bool same = true;
    for (const char letter : name) {
      if (p < m_s.size() && ascii_lower(m_s[p]) == letter) {
        ++p;
      } else if (letter == 's' && byte_at(m_s, p) == 0xC5 && byte_at(m_s, p + 1) == 0xBF) {
        p += 2;
      } else if (letter == 'i' && byte_at(m_s, p) == 0xC4 &&
                 (byte_at(m_s, p + 1) == 0xB0 || byte_at(m_s, p + 1) == 0xB1)) {
        p += 2;
      } else {
        same = false;
        break;
      }
    }
    if (same && byte_at(m_s, skip_spaces(m_s, p)) == '>') return at;
  }
  return npos;
}

// parse_comment: the first `--\s*>` after "<!--".
std::size_t Reader::parse_comment(std::size_t i) const {
  for (std::size_t at = i + 4; (at = m_s.find("--", at)) != npos; ++at) {
    const std::size_t gt = skip_spaces(m_s, at + 2);
    if (byte_at(m_s, gt) == '>') return gt + 1;
  }
  return npos;
}

// parse_marked_section (_markupbase): `<![name ...` up to `]]>` (`]>` for
// MS Office's if/else/endif), spaces allowed between.
std::size_t Reader::parse_marked_section(std::size_t i) const {
  const std::size_t name = i + 3;
  if (name >= m_s.size()) return npos;
  const auto bogus_comment = [&] {
    const std::size_t gt = find_gt(i + 2);
    return gt == npos ? npos : gt + 1;
  };
  if (!ascii_letter(m_s[name])) return bogus_comment();  // html.parser: AssertionError
  std::size_t name_end = name + 1;
  while (name_end < m_s.size() &&
         (ascii_letter(m_s[name_end]) || (m_s[name_end] >= '0' && m_s[name_end] <= '9') ||
          m_s[name_end] == '-' || m_s[name_end] == '_' || m_s[name_end] == '.'))
    ++name_end;
  if (skip_spaces(m_s, name_end) >= m_s.size()) return npos;  // _scan_name: the end of input
  std::string lower(m_s.substr(name, name_end - name));
  std::transform(lower.begin(), lower.end(), lower.begin(), ascii_lower);
  bool doubled = false;
  if (lower == "temp" || lower == "cdata" || lower == "ignore" || lower == "include" ||
      lower == "rcdata") {
    doubled = true;  // `]\s*]\s*>`
  } else if (lower != "if" && lower != "else" && lower != "endif") {
    return bogus_comment();  // html.parser: AssertionError, unknown status keyword
  }
  for (std::size_t at = name; (at = m_s.find(']', at)) != npos; ++at) {
    std::size_t p = skip_spaces(m_s, at + 1);
    if (doubled) {
      if (byte_at(m_s, p) != ']') continue;
      p = skip_spaces(m_s, p + 1);
    }
    if (byte_at(m_s, p) == '>') return p + 1;
  }
  return npos;
}

// parse_html_declaration: `<![`, `<!DOCTYPE ...>`, else a bogus comment.
std::size_t Reader::parse_html_declaration(std::size_t i) const {
  if (m_s.substr(i, 3) == "<![") return parse_marked_section(i);
  std::size_t from = i + 2;
  constexpr std::string_view k_doctype = "<!doctype";
  if (m_s.size() - i >= k_doctype.size() &&
      std::equal(k_doctype.begin(), k_doctype.end(), m_s.begin() + static_cast<std::ptrdiff_t>(i),
                 [](char want, char c) { return want == ascii_lower(c); }))
    from = i + k_doctype.size();
  const std::size_t gt = find_gt(from);
  return gt == npos ? npos : gt + 1;
}

std::size_t Reader::find_gt(std::size_t from) const { return m_s.find('>', from); }

// goahead's guard for a character reference cut by the end of a chunk: when
// no '<' follows, text whose last 34 characters hold an '&' followed by no
// whitespace and no ';' waits for more input, and without close() is
// never reported.
bool Reader::text_withheld(std::size_t i) const {
  std::size_t start = m_s.size();
  for (std::size_t characters = 0; start > 0 && characters < 34;) {
    --start;
    if ((static_cast<unsigned char>(m_s[start]) & 0xC0) != 0x80) ++characters;
  }
  const std::size_t amp = m_s.rfind('&');
  if (amp == npos || amp < std::max(start, i)) return false;
  for (std::size_t at = amp; at < m_s.size(); ++at) {
    if (m_s[at] == ';' || space_at(m_s, at) != 0) return false;
  }
  return true;
}

// goahead(end=False) with convert_charrefs=True.
void Reader::run() {
  const std::size_t n = m_s.size();
  std::size_t i = 0;
  while (i < n) {
    std::size_t j = 0;
    if (m_raw_text == Tag::other) {
      j = m_s.find('<', i);
      if (j == npos) {
        if (text_withheld(i)) return;
        j = n;
      }
    } else {
      j = find_raw_text_end(i);
      if (j == npos) return;  // raw text never ended: the rest is never reported
    }
    if (i < j) m_handler.text(m_s.substr(i, j - i), m_raw_text != Tag::other);
    i = j;
    if (i == n) return;
    if (i + 1 == n) return;  // a lone '<' at the end waits for more input
    const char next = m_s[i + 1];
    std::size_t k = 0;
    if (ascii_letter(next)) {
      k = parse_starttag(i);
    } else if (next == '/') {
      k = parse_endtag(i);
    } else if (m_s.substr(i, 4) == "<!--") {
      k = parse_comment(i);
    } else if (next == '?') {
      const std::size_t gt = find_gt(i + 2);  // parse_pi
      k = gt == npos ? npos : gt + 1;
    } else if (next == '!') {
      k = parse_html_declaration(i);
    } else {
      m_handler.text(m_s.substr(i, 1), true);
      k = i + 1;
    }
    if (k == npos) return;  // never closed: html.parser waits for more input
    i = k;
  }
}

}  // namespace

bool name_is(std::string_view written, std::string_view lower) {
  // Only a KELVIN SIGN (3 bytes for 'k') makes the written name longer.
  if (written.size() < lower.size()) return false;
  if (written.size() > lower.size() && lower.find('k') == std::string_view::npos) return false;
  std::size_t at = 0;
  for (const char want : lower) {
    if (at < written.size() && ascii_lower(written[at]) == want) {
      ++at;
    } else if (want == 'k' && written.substr(at, 3) == "\xE2\x84\xAA") {
      at += 3;  // U+212A KELVIN SIGN: "K".lower() == "k"
    } else {
      return false;
    }
  }
  return at == written.size();
}

std::optional<std::string_view> last_value(std::span<const Attribute> attributes,
                                           std::string_view name, bool* found) {
  for (auto it = attributes.rbegin(); it != attributes.rend(); ++it) {
    if (name_is(it->name, name)) {
      if (found != nullptr) *found = true;
      return it->value;
    }
  }
  if (found != nullptr) *found = false;
  return std::nullopt;
}

void read_page(std::string_view page, Handler& handler) { Reader(page, handler).run(); }

}  // namespace wheelmod::index::html
