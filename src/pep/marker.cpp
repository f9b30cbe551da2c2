// PEP 508 "Environment Markers": tokenizer, grammar, str() and evaluation,
// following python3-packaging 23.0 (_tokenizer.py, _parser.py, markers.py).
#include "pep/marker.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "marker_grammar.hpp"
#include "pep/name.hpp"
#include "pep/specifier.hpp"
#include "pep/version.hpp"

namespace wheelmod::pep {

using Node = Marker::Node;
using Term = Node::Term;
using TermKind = Node::TermKind;

Marker Node::make_marker(Node root) { return Marker(std::make_unique<Node>(std::move(root))); }

namespace pep508 {

char32_t decode_utf8(std::string_view text, std::size_t pos, std::size_t& length) {
  const auto lead = static_cast<unsigned char>(text[pos]);
  length = 1;
  std::size_t extra = 0;
  char32_t cp = lead;
  if (lead >= 0xC2 && lead <= 0xDF) {
    extra = 1;
    cp = lead & 0x1Fu;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    extra = 2;
    cp = lead & 0x0Fu;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    extra = 3;
    cp = lead & 0x07u;
  } else {
    return lead;
  }
  if (pos + extra >= text.size()) return lead;
  for (std::size_t i = 1; i <= extra; ++i) {
    const auto byte = static_cast<unsigned char>(text[pos + i]);
    if ((byte & 0xC0u) != 0x80u) return lead;
    cp = (cp << 6) | (byte & 0x3Fu);
  }
  length = extra + 1;
  return cp;
}

bool is_word_char(char32_t cp) {
  if (cp < 0x80) {
    return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') ||
           cp == '_';
  }
  if (cp < 0xC0) {
    return cp == 0xAA || cp == 0xB2 || cp == 0xB3 || cp == 0xB5 || cp == 0xB9 || cp == 0xBA ||
           (cp >= 0xBC && cp <= 0xBE);
  }
  if (cp < 0x100) return cp != 0xD7 && cp != 0xF7;
  // Beyond Latin-1 without Unicode tables: letters, except the spaces
  // (U+1680, U+2000-200A, ...) and the common punctuation blocks.
  return cp != 0x1680 && !(cp >= 0x2000 && cp <= 0x206F) && !(cp >= 0x3000 && cp <= 0x3003) &&
         !(cp >= 0xD800 && cp <= 0xDFFF);
}

bool is_word_boundary(std::string_view source, std::size_t pos) {
  bool before = false;
  if (pos > 0) {
    std::size_t start = pos - 1;
    while (start > 0 && pos - start < 4 &&
           (static_cast<unsigned char>(source[start]) & 0xC0u) == 0x80u)
      --start;
    std::size_t length = 0;
    char32_t cp = decode_utf8(source, start, length);
    if (start + length != pos) cp = static_cast<unsigned char>(source[pos - 1]);
    before = is_word_char(cp);
  }
  bool after = false;
  if (pos < source.size()) {
    std::size_t length = 0;
    after = is_word_char(decode_utf8(source, pos, length));
  }
  return before != after;
}

std::size_t match_ws(std::string_view source, std::size_t pos) {
  std::size_t end = pos;
  while (end < source.size() && (source[end] == ' ' || source[end] == '\t')) ++end;
  return end == pos ? k_no_match : end - pos;
}

// Python's `$` also matches before a newline that ends the text.
std::size_t match_end(std::string_view source, std::size_t pos) {
  const bool at_end = pos == source.size() || (pos + 1 == source.size() && source[pos] == '\n');
  return at_end ? 0 : k_no_match;
}

std::size_t match_left_paren(std::string_view source, std::size_t pos) {
  return pos < source.size() && source[pos] == '(' ? 1 : k_no_match;
}

std::size_t match_right_paren(std::string_view source, std::size_t pos) {
  return pos < source.size() && source[pos] == ')' ? 1 : k_no_match;
}

namespace {

// `\bword\b`
std::size_t match_word(std::string_view source, std::size_t pos, std::string_view word) {
  if (!source.substr(pos).starts_with(word)) return k_no_match;
  return is_word_boundary(source, pos) && is_word_boundary(source, pos + word.size()) ? word.size()
                                                                                      : k_no_match;
}

std::size_t match_boolop(std::string_view source, std::size_t pos) {
  const std::size_t length = match_word(source, pos, "or");
  return length != k_no_match ? length : match_word(source, pos, "and");
}

std::size_t match_in(std::string_view source, std::size_t pos) {
  return match_word(source, pos, "in");
}

std::size_t match_not(std::string_view source, std::size_t pos) {
  return match_word(source, pos, "not");
}

// PEP 508 "Environment Markers" names, plus the dotted and
// `python_implementation` spellings packaging 23.0 still accepts.
// clang-format off
constexpr std::array<std::string_view, 18> k_variable_spellings = {
    "python_version", "python_full_version", "os_name", "os.name", "sys_platform", "sys.platform",
    "platform_release", "platform_system", "platform_version", "platform.version",
    "platform_machine", "platform.machine", "platform_python_implementation",
    "platform.python_implementation", "python_implementation", "implementation_name",
    "implementation_version", "extra"};
// clang-format on

std::size_t match_variable(std::string_view source, std::size_t pos) {
  for (std::string_view name : k_variable_spellings) {
    const std::size_t length = match_word(source, pos, name);
    if (length != k_no_match) return length;
  }
  return k_no_match;
}

std::size_t match_op(std::string_view source, std::size_t pos) {
  for (std::string_view op : {"===", "==", "~=", "!=", "<=", ">=", "<", ">"}) {
    if (source.substr(pos).starts_with(op)) return op.size();
  }
  return k_no_match;
}

// '[^']*' or "[^"]*"
std::size_t match_quoted_string(std::string_view source, std::size_t pos) {
  if (pos >= source.size() || (source[pos] != '\'' && source[pos] != '"')) return k_no_match;
  const std::size_t close = source.find(source[pos], pos + 1);
  return close == std::string_view::npos ? k_no_match : close + 1 - pos;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {  // lone surrogates too, as Python's str holds them
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// packaging reads a quoted string with ast.literal_eval, so Python's string
/// escapes apply (`\n`, `\x41`, `\u00e9`, octal, backslash-newline) and
/// unknown escapes (`\d`) stay as written. `\N{name}` needs the Unicode name
/// database and is refused.
std::expected<std::string, std::string> decode_python_string(std::string_view token) {
  const std::string_view body = token.substr(1, token.size() - 2);
  std::string out;
  for (std::size_t i = 0; i < body.size();) {
    const char c = body[i];
    if (c == '\n' || c == '\r') return std::unexpected("line break inside a quoted string");
    if (c == '\0') return std::unexpected("NUL character inside a quoted string");
    if (c != '\\') {
      out += c;
      ++i;
      continue;
    }
    if (i + 1 == body.size()) {
      return std::unexpected("quoted string ends in a backslash, which escapes the closing quote");
    }
    const char escape = body[i + 1];
    i += 2;
    std::size_t digits = 0;  // hex digits a \x, \u or \U escape needs
    switch (escape) {
      case '\n':
        continue;
      case '\r':
        if (i < body.size() && body[i] == '\n') ++i;
        continue;
      case '\0':
        return std::unexpected("NUL character inside a quoted string");
      case '\\':
        out += '\\';
        continue;
      case '\'':
        out += '\'';
        continue;
      case '"':
        out += '"';
        continue;
      case 'a':
        out += '\a';
        continue;
      case 'b':
        out += '\b';
        continue;
      case 'f':
        out += '\f';
        continue;
      case 'n':
        out += '\n';
        continue;
      case 'r':
        out += '\r';
        continue;
      case 't':
        out += '\t';
        continue;
      case 'v':
        out += '\v';
        continue;
      case 'x':
        digits = 2;
        break;
      case 'u':
        digits = 4;
        break;
      case 'U':
        digits = 8;
        break;
      case 'N':
        return std::unexpected("\\N{...} escapes are not supported in quoted strings");
      default:
        if (escape >= '0' && escape <= '7') {
          char32_t value = static_cast<char32_t>(escape - '0');
          for (int n = 0; n < 2 && i < body.size() && body[i] >= '0' && body[i] <= '7'; ++n, ++i)
            value = value * 8 + static_cast<char32_t>(body[i] - '0');
          append_utf8(out, value);
        } else {
          out += '\\';
          out += escape;
        }
        continue;
    }
    char32_t value = 0;
    for (std::size_t n = 0; n < digits; ++n, ++i) {
      if (i >= body.size() || hex_value(body[i]) < 0) {
        return std::unexpected("truncated \\" + std::string(1, escape) + " escape (needs " +
                               std::to_string(digits) + " hex digits)");
      }
      value = value * 16 + static_cast<char32_t>(hex_value(body[i]));
    }
    if (value > 0x10FFFF) return std::unexpected("\\U escape beyond U+10FFFF");
    append_utf8(out, value);
  }
  return out;
}

// Python's recursion limit stops packaging long before this; we only need a bound.
constexpr int k_max_nesting = 200;

std::expected<Node, SyntaxError> parse_marker_nested(Tokenizer& tokenizer, int depth);

// marker_var = VARIABLE | QUOTED_STRING
std::expected<Term, SyntaxError> parse_marker_var(Tokenizer& tokenizer) {
  const std::size_t start = tokenizer.position();
  if (auto variable = tokenizer.take(match_variable)) {
    std::string name(*variable);
    std::ranges::replace(name, '.', '_');
    if (name == "python_implementation") name = "platform_python_implementation";
    return Term{TermKind::variable, std::move(name)};
  }
  if (auto quoted = tokenizer.take(match_quoted_string)) {
    auto decoded = decode_python_string(*quoted);
    if (!decoded) return std::unexpected(SyntaxError{std::move(decoded.error()), start});
    return Term{TermKind::value, std::move(*decoded)};
  }
  return std::unexpected(tokenizer.error("expected a marker variable or quoted string"));
}

// marker_op = IN | NOT WS IN | OP
std::expected<std::string, SyntaxError> parse_marker_op(Tokenizer& tokenizer) {
  if (tokenizer.take(match_in)) return "in";
  if (tokenizer.take(match_not)) {
    if (auto ws = tokenizer.expect(match_ws, "whitespace after 'not'"); !ws)
      return std::unexpected(ws.error());
    if (auto in = tokenizer.expect(match_in, "'in' after 'not'"); !in)
      return std::unexpected(in.error());
    return "not in";
  }
  if (auto op = tokenizer.take(match_op)) return std::string(*op);
  return std::unexpected(tokenizer.error(
      "expected a marker operator, one of <=, <, !=, ==, >=, >, ~=, ===, in, not in"));
}

// marker_item = WS? marker_var WS? marker_op WS? marker_var WS?
std::expected<Node, SyntaxError> parse_marker_item(Tokenizer& tokenizer) {
  tokenizer.take(match_ws);
  auto lhs = parse_marker_var(tokenizer);
  if (!lhs) return std::unexpected(lhs.error());
  tokenizer.take(match_ws);
  auto op = parse_marker_op(tokenizer);
  if (!op) return std::unexpected(op.error());
  tokenizer.take(match_ws);
  auto rhs = parse_marker_var(tokenizer);
  if (!rhs) return std::unexpected(rhs.error());
  tokenizer.take(match_ws);
  Node leaf;
  leaf.comparison = Node::Comparison{std::move(*lhs), std::move(*op), std::move(*rhs)};
  return leaf;
}

// marker_atom = WS? '(' WS? marker WS? ')' WS? | WS? marker_item WS?
std::expected<Node, SyntaxError> parse_marker_atom(Tokenizer& tokenizer, int depth) {
  tokenizer.take(match_ws);
  std::expected<Node, SyntaxError> atom;
  if (tokenizer.peek(match_left_paren)) {
    if (depth >= k_max_nesting) return std::unexpected(tokenizer.error("too deeply nested"));
    const std::size_t open = tokenizer.position();
    tokenizer.take(match_left_paren);
    tokenizer.take(match_ws);
    atom = parse_marker_nested(tokenizer, depth + 1);
    if (!atom) return atom;
    tokenizer.take(match_ws);
    if (!tokenizer.take(match_right_paren)) {
      return std::unexpected(
          tokenizer.error("expected ')' to close the '(' at column " + std::to_string(open + 1)));
    }
  } else {
    atom = parse_marker_item(tokenizer);
    if (!atom) return atom;
  }
  tokenizer.take(match_ws);
  return atom;
}

// marker = marker_atom (BOOLOP marker_atom)*
std::expected<Node, SyntaxError> parse_marker_nested(Tokenizer& tokenizer, int depth) {
  Node group;
  auto atom = parse_marker_atom(tokenizer, depth);
  if (!atom) return atom;
  group.children.push_back(std::move(*atom));
  while (auto op = tokenizer.take(match_boolop)) {
    group.ops.push_back(*op == "or" ? Node::BoolOp::or_op : Node::BoolOp::and_op);
    atom = parse_marker_atom(tokenizer, depth);
    if (!atom) return atom;
    group.children.push_back(std::move(*atom));
  }
  return group;
}

}  // namespace

std::expected<Node, SyntaxError> parse_marker(Tokenizer& tokenizer) {
  return parse_marker_nested(tokenizer, 0);
}

void normalize_extra_values(Node& root) {
  if (root.children.empty() || !root.children.front().comparison) return;
  Node::Comparison& first = *root.children.front().comparison;
  // PEP 685: extra names compare normalised. The side compared with `extra`
  // becomes a string even when it was a variable, as in packaging.
  if (first.lhs.kind == TermKind::variable && first.lhs.text == "extra") {
    first.rhs = Term{TermKind::value, canonicalize_name(first.rhs.text)};
  } else if (first.rhs.kind == TermKind::variable && first.rhs.text == "extra") {
    first.lhs = Term{TermKind::value, canonicalize_name(first.lhs.text)};
  }
}

ParseError to_parse_error(std::string_view source, const SyntaxError& error) {
  std::size_t column = 1;
  for (std::size_t i = 0; i < error.position && i < source.size(); ++i)
    if ((static_cast<unsigned char>(source[i]) & 0xC0u) != 0x80u) ++column;
  std::string message = "column " + std::to_string(column) + ": " + error.message;
  if (error.position >= source.size()) {
    message += ", found end of input";
  } else {
    std::size_t end = error.position;
    while (end < source.size() && end - error.position < 20 && source[end] != ' ' &&
           source[end] != '\t' && source[end] != '\n')
      ++end;
    while (end < source.size() && (static_cast<unsigned char>(source[end]) & 0xC0u) == 0x80u)
      ++end;  // never cut a UTF-8 sequence
    if (end == error.position) ++end;
    message += ", found '" + std::string(source.substr(error.position, end - error.position)) + "'";
  }
  return ParseError{std::string(source), std::move(message)};
}

}  // namespace pep508

namespace {

/// The environment as packaging's evaluate() builds it: the eleven PEP 508
/// names plus `extra`; other keys (`os.name` included) are missing.
std::optional<std::string_view> environment_value(const MarkerEnvironment& env,
                                                  std::string_view extra, std::string_view key) {
  if (key == "extra") return extra;
  const std::array<std::pair<std::string_view, const std::string*>, 11> fields = {{
      {"implementation_name", &env.implementation_name},
      {"implementation_version", &env.implementation_version},
      {"os_name", &env.os_name},
      {"platform_machine", &env.platform_machine},
      {"platform_release", &env.platform_release},
      {"platform_system", &env.platform_system},
      {"platform_version", &env.platform_version},
      {"python_full_version", &env.python_full_version},
      {"platform_python_implementation", &env.platform_python_implementation},
      {"python_version", &env.python_version},
      {"sys_platform", &env.sys_platform},
  }};
  for (const auto& [name, value] : fields)
    if (name == key) return *value;
  return std::nullopt;
}

std::string single_quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

/// packaging's _eval_op: a version comparison when `op` + `rhs` is a valid
/// PEP 440 specifier (pre-releases allowed, and then `lhs` must be a
/// version), else Python's string operators.
std::expected<bool, UndefinedComparison> evaluate_op(const std::string& lhs, const std::string& op,
                                                     const std::string& rhs) {
  if (auto specifier = Specifier::parse(op + rhs)) {
    auto version = Version::parse(lhs);
    if (!version) {
      return std::unexpected(UndefinedComparison{"invalid version " + single_quoted(lhs) +
                                                 " compared with " + single_quoted(op + rhs)});
    }
    return specifier->contains(*version, Prereleases::allow);
  }
  if (op == "in") return rhs.find(lhs) != std::string::npos;
  if (op == "not in") return rhs.find(lhs) == std::string::npos;
  // UTF-8 byte order is code point order, so this is Python's str order.
  if (op == "<") return lhs < rhs;
  if (op == "<=") return lhs <= rhs;
  if (op == "==") return lhs == rhs;
  if (op == "!=") return lhs != rhs;
  if (op == ">=") return lhs >= rhs;
  if (op == ">") return lhs > rhs;
  return std::unexpected(UndefinedComparison{"undefined comparison " + single_quoted(lhs) + " " +
                                             op + " " + single_quoted(rhs) +
                                             ": not a valid version specifier"});
}

std::expected<bool, UndefinedComparison> evaluate_comparison(const Node::Comparison& comparison,
                                                             const MarkerEnvironment& env,
                                                             std::string_view extra) {
  std::string lhs;
  std::string rhs;
  std::string_view key;
  // As packaging: the variable's side is looked up when the left side is a
  // variable; otherwise the right side's text is looked up, variable or not.
  if (comparison.lhs.kind == TermKind::variable) {
    key = comparison.lhs.text;
    lhs = std::string(environment_value(env, extra, key).value_or(""));
    rhs = comparison.rhs.text;
  } else {
    key = comparison.rhs.text;
    const auto value = environment_value(env, extra, key);
    if (!value) {
      return std::unexpected(UndefinedComparison{
          "unknown marker variable " + single_quoted(key) + " on the right of " +
          single_quoted(comparison.lhs.text) + " " + comparison.op});
    }
    lhs = comparison.lhs.text;
    rhs = std::string(*value);
  }
  if (key == "extra") {  // PEP 685 "Specification": compare normalised names
    lhs = canonicalize_name(lhs);
    rhs = canonicalize_name(rhs);
  }
  return evaluate_op(lhs, comparison.op, rhs);
}

/// packaging's _evaluate_markers: `and` binds tighter than `or`; every atom
/// is evaluated (no short-circuit), so an undefined comparison anywhere fails.
std::expected<bool, UndefinedComparison> evaluate_node(const Node& node,
                                                       const MarkerEnvironment& env,
                                                       std::string_view extra) {
  if (node.comparison) return evaluate_comparison(*node.comparison, env, extra);
  bool any_group = false;
  bool this_group = true;
  for (std::size_t i = 0; i < node.children.size(); ++i) {
    if (i > 0 && node.ops[i - 1] == Node::BoolOp::or_op) {
      any_group = any_group || this_group;
      this_group = true;
    }
    const auto value = evaluate_node(node.children[i], env, extra);
    if (!value) return value;
    this_group = this_group && *value;
  }
  return any_group || this_group;
}

std::string serialize(const Term& term) {
  // packaging wraps the text in double quotes without escaping anything.
  return term.kind == TermKind::variable ? term.text : "\"" + term.text + "\"";
}

/// packaging's _format_marker: a group of one is printed as its content, a
/// nested group in parentheses.
std::string format(const Node& node, bool first) {
  if (node.comparison) {
    return serialize(node.comparison->lhs) + " " + node.comparison->op + " " +
           serialize(node.comparison->rhs);
  }
  if (node.children.size() == 1) return format(node.children.front(), true);
  std::string text;
  for (std::size_t i = 0; i < node.children.size(); ++i) {
    if (i > 0) text += node.ops[i - 1] == Node::BoolOp::or_op ? " or " : " and ";
    text += format(node.children[i], false);
  }
  return first ? text : "(" + text + ")";
}

}  // namespace

std::optional<std::string_view> MarkerEnvironment::lookup(std::string_view variable) const {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 6> k_aliases = {{
      {"os.name", "os_name"},
      {"sys.platform", "sys_platform"},
      {"platform.version", "platform_version"},
      {"platform.machine", "platform_machine"},
      {"platform.python_implementation", "platform_python_implementation"},
      {"python_implementation", "platform_python_implementation"},
  }};
  for (const auto& [alias, name] : k_aliases)
    if (variable == alias) variable = name;
  if (variable == "extra") return std::nullopt;  // not part of the environment
  return environment_value(*this, "", variable);
}

MarkerEnvironment MarkerEnvironment::linux_cpython(std::string_view python,
                                                   std::string_view machine) {
  MarkerEnvironment env;
  env.platform_machine = std::string(machine);
  const std::size_t first_dot = python.find('.');
  const std::size_t second_dot =
      first_dot == std::string_view::npos ? first_dot : python.find('.', first_dot + 1);
  env.python_version = std::string(python.substr(0, second_dot));
  env.python_full_version =
      second_dot == std::string_view::npos ? std::string(python) + ".0" : std::string(python);
  env.implementation_version = env.python_full_version;
  return env;
}

Parsed<Marker> Marker::parse(std::string_view text) {
  pep508::Tokenizer tokenizer(text);
  auto root = pep508::parse_marker(tokenizer);
  if (!root) return std::unexpected(pep508::to_parse_error(text, root.error()));
  // packaging 23.0's Marker() stops after the last complete expression and
  // ignores what follows (`python_version > "3" junk` parses); we match it.
  pep508::normalize_extra_values(*root);
  return Node::make_marker(std::move(*root));
}

std::expected<bool, UndefinedComparison> Marker::evaluate(const MarkerEnvironment& env,
                                                          std::string_view extra) const {
  if (!m_root) return true;  // a moved-from marker
  return evaluate_node(*m_root, env, extra);
}

std::string Marker::str() const { return m_root ? format(*m_root, true) : std::string(); }

Marker::Marker(std::unique_ptr<Node> root) : m_root(std::move(root)) {}
Marker::Marker(const Marker& other)
    : m_root(other.m_root ? std::make_unique<Node>(*other.m_root) : nullptr) {}
Marker& Marker::operator=(const Marker& other) {
  if (this != &other) m_root = other.m_root ? std::make_unique<Node>(*other.m_root) : nullptr;
  return *this;
}
Marker::Marker(Marker&&) noexcept = default;
Marker& Marker::operator=(Marker&&) noexcept = default;
Marker::~Marker() = default;

}  // namespace wheelmod::pep
