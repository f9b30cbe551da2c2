// Private to src/pep (marker.cpp and requirement.cpp): the PEP 508 tokenizer
// and marker grammar, modelled on python3-packaging 23.0's _tokenizer.py and
// _parser.py. Other layers use marker.hpp and requirement.hpp instead.
#pragma once

#include <cstddef>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pep/marker.hpp"
#include "pep/parse_error.hpp"

namespace wheelmod::pep {

/// The expression tree packaging keeps as nested lists: a leaf holds one
/// comparison (`lhs op rhs`), a group holds `atom (and|or atom)*`, and each
/// parenthesised expression is a group of its own, so that str() can print
/// exactly what packaging's _format_marker prints.
struct Marker::Node {
  enum class TermKind { variable, value };
  struct Term {
    TermKind kind = TermKind::value;
    std::string text;  // a canonical variable name, or the decoded string
  };
  struct Comparison {
    Term lhs;
    std::string op;  // "==", "not in", ...
    Term rhs;
  };
  enum class BoolOp { and_op, or_op };

  std::optional<Comparison> comparison;  // set for a leaf
  std::vector<Node> children;            // a group's atoms
  std::vector<BoolOp> ops;               // ops[i] joins children[i] and children[i + 1]

  /// A Marker owning `root` (Marker's constructor is private to other code).
  static Marker make_marker(Node root);
};

namespace pep508 {

inline constexpr std::size_t k_no_match = static_cast<std::size_t>(-1);

/// One of packaging's token rules: the length of its match at `pos` in
/// `source` (the whole text, as Python's `\b` looks behind `pos`), or
/// k_no_match.
using Rule = std::size_t (*)(std::string_view source, std::size_t pos);

/// A grammar error at byte `position` of the source.
struct SyntaxError {
  std::string message;  // "expected a marker variable or quoted string"
  std::size_t position = 0;
};

/// packaging's Tokenizer: rules are tried where asked (context-sensitive).
class Tokenizer {
 public:
  explicit Tokenizer(std::string_view source) : m_source(source) {}

  [[nodiscard]] std::string_view source() const { return m_source; }
  [[nodiscard]] std::size_t position() const { return m_position; }

  /// Whether `rule` matches here, without moving (packaging's check(peek=True)).
  [[nodiscard]] bool peek(Rule rule) const { return rule(m_source, m_position) != k_no_match; }

  /// The token when `rule` matches here, moving past it (check + read).
  std::optional<std::string_view> take(Rule rule) {
    const std::size_t length = rule(m_source, m_position);
    if (length == k_no_match) return std::nullopt;
    const std::string_view token = m_source.substr(m_position, length);
    m_position += length;
    return token;
  }

  /// packaging's expect(): the token, or "expected <what>" here.
  std::expected<std::string_view, SyntaxError> expect(Rule rule, std::string_view what) {
    if (auto token = take(rule)) return *token;
    return std::unexpected(error("expected " + std::string(what)));
  }

  [[nodiscard]] SyntaxError error(std::string message) const {
    return SyntaxError{std::move(message), m_position};
  }

 private:
  std::string_view m_source;
  std::size_t m_position = 0;
};

// Rules shared by markers and requirements (packaging's DEFAULT_RULES).
std::size_t match_ws(std::string_view source, std::size_t pos);          // [ \t]+
std::size_t match_end(std::string_view source, std::size_t pos);         // $
std::size_t match_left_paren(std::string_view source, std::size_t pos);  // (
std::size_t match_right_paren(std::string_view source, std::size_t pos);

/// The code point starting at `pos` (an invalid byte reads as itself) and
/// its length in bytes.
char32_t decode_utf8(std::string_view text, std::size_t pos, std::size_t& length);
/// Python's `\w` for str patterns: exact for ASCII and Latin-1, beyond that
/// every code point but spaces and common punctuation (letters assumed).
bool is_word_char(char32_t cp);
/// Python's `\b` at `pos`.
bool is_word_boundary(std::string_view source, std::size_t pos);

/// marker = marker_atom (BOOLOP marker_atom)*, from the tokenizer's position
/// (packaging's _parse_marker; trailing text is left to the caller).
std::expected<Marker::Node, SyntaxError> parse_marker(Tokenizer& tokenizer);

/// packaging's _normalize_extra_values: the first atom of the top-level
/// group, when it compares `extra` with a string, gets that string PEP 685
/// normalised (only that one, as in 23.0; evaluation normalises them all).
void normalize_extra_values(Marker::Node& root);

/// `error` as a ParseError over `source`: where, what, and what is there
/// instead ("column 19: expected a marker variable or quoted string, found
/// '3.12'").
ParseError to_parse_error(std::string_view source, const SyntaxError& error);

}  // namespace pep508
}  // namespace wheelmod::pep
