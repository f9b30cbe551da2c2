// Character references in index pages, decoded as Python's html.unescape
// decodes them: html.parser applies it to every attribute value and to text,
// so pip reads an href this way (tests/differential/README.md, "index").
#pragma once

#include <string>
#include <string_view>

namespace wheelmod::index::html {

/// Appends `text` to `out` with its character references replaced as html.unescape does (HTML
/// Living Standard "Named character references" and "Numeric character reference end state"):
/// `&amp;`, the legacy names without ';' (`&amp`, `&copy`), the longest name that prefixes an
/// unknown one (`&ampx` -> `&x`), `&#43;` / `&#x2B;`, invalid numbers replaced or dropped.
void append_unescaped(std::string_view text, std::string& out);

/// `text` with its references decoded: `text` itself when it holds no '&', else a view of
/// `scratch`, which it overwrites.
std::string_view unescaped(std::string_view text, std::string& scratch);

}  // namespace wheelmod::index::html
