// A streaming reader of the markup a PEP 503 page is read for: the start
// tags of <a>, <base> and <meta> with their attributes, the end of each <a>,
// and the text between. No tree is built and nothing is copied: events carry
// views of the page.
//
// It reads a page exactly as pip does. pip (pip/_internal/index/collector.py,
// HTMLLinkParser and parse_links) feeds the whole page once to Python's
// html.parser.HTMLParser, which is not an HTML5 tokenizer, and never calls
// close(); this reader is html.parser's goahead() under those conditions
// (CPython 3.11 Lib/html/parser.py), the differential test
// (tests/differential/index_html_differential.cpp) holds it to the reference
// /usr/bin/python3 on generated and hostile pages. What that means:
// - tags: `<` + an ASCII letter; the name ends at tab, LF, CR, FF, space, '/',
//   '>' or NUL; names of tags and attributes are matched case-insensitively;
// - attribute values '...', "..." or bare, `<a data-yanked>` without a value
//   (nullopt, not ""); duplicates are all kept, in order (pip's dict(attrs)
//   then keeps the last);
// - comments end at the first `--`, spaces, `>`; `<!DOCTYPE ...>`, `<?...>`,
//   `<!...>`, `<![CDATA[...]]>` are skipped; <script> and <style> hold raw
//   text up to their end tag; a construct never closed ends the page;
// - character references: html.unescape (html_entities.hpp);
// - "whitespace" is Python's str.isspace(): also U+001C-U+001F, U+0085,
//   U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
// Where html.parser 3.11 raises (a marked section `<![` with no name or an
// unknown one), this reader takes the markup as a bogus comment up to '>'
// (HTML "Bogus comment state"), as later CPython versions do.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wheelmod::index::html {

/// An attribute as written: `value` is raw (references not decoded) without its quotes.
struct Attribute {
  std::string_view name;
  std::optional<std::string_view> value;  // nullopt: written without `=`
};

/// Whether attribute or tag name `written` is `lower` (ASCII lower case) as Python's str.lower()
/// compares them (ASCII letters, and U+212A KELVIN SIGN, which lower-cases to 'k').
bool name_is(std::string_view written, std::string_view lower);

/// The value of the last attribute named `name` (pip's dict(attrs)); nullopt when there is none
/// or it has no value. `found` (optional) says whether there is one at all.
std::optional<std::string_view> last_value(std::span<const Attribute> attributes,
                                           std::string_view name, bool* found = nullptr);

/// The elements a page is read for.
enum class Element { a, base, meta };

/// What the reader reports, in page order.
class Handler {
 public:
  virtual ~Handler() = default;
  /// A start tag of `element` (`<a .../>` is a start and an end).
  virtual void start_tag(Element element, std::span<const Attribute> attributes) = 0;
  /// `</a>`, or the end of `<a .../>`.
  virtual void end_anchor() = 0;
  /// Text between tags; `raw`: as written (in <script>/<style>, or markup html.parser gives up
  /// on), else with its character references still to decode (html_entities.hpp).
  virtual void text(std::string_view text, bool raw) = 0;
};

/// Reads `page` to its end, or to the first construct that is never closed, reporting to
/// `handler`.
void read_page(std::string_view page, Handler& handler);

}  // namespace wheelmod::index::html
