#include "install_scripts.hpp"

#include <algorithm>
#include <optional>
#include <unordered_set>

namespace wheelmod::wheel {

namespace {

using pep::ParseError;

constexpr std::string_view k_python_shebang = "#!python";

std::string_view trim_ini_blanks(std::string_view text) {
  constexpr std::string_view k_space = " \t\r\f\v";
  const auto first = text.find_first_not_of(k_space);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(k_space) - first + 1);
}

// Python identifiers, dotted. Non-ASCII bytes are let through (PEP 3131
// names); what matters is that nothing here can end the import statement
// the wrapper is built from.
bool is_dotted_identifier(std::string_view text) {
  if (text.empty()) return false;
  bool at_start = true;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    const bool letter =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || byte >= 0x80;
    const bool digit = c >= '0' && c <= '9';
    if (c == '.') {
      if (at_start) return false;
      at_start = true;
    } else if (letter || (digit && !at_start)) {
      at_start = false;
    } else {
      return false;
    }
  }
  return !at_start;
}

// The name becomes a file in bin/: one plain path component.
bool is_script_file_name(std::string_view name) {
  if (name.empty() || name == "." || name == ".." || name.front() == '[') return false;
  return std::ranges::none_of(name, [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return c == '/' || c == '\\' || byte < 0x20 || byte == 0x7f;
  });
}

std::unexpected<ParseError> fail(std::string_view line, std::string message) {
  return std::unexpected(ParseError{std::string(line), std::move(message)});
}

}  // namespace

pep::Parsed<std::vector<ScriptEntryPoint>> parse_script_entry_points(std::string_view text) {
  std::vector<ScriptEntryPoint> out;
  std::unordered_set<std::string> names;
  std::optional<ScriptKind> group;  // nullopt: a group that makes no scripts
  while (!text.empty()) {
    const auto end = std::min(text.find('\n'), text.size());
    const auto raw = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    const auto line = trim_ini_blanks(raw);
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (line.front() == '[' && line.back() == ']') {
      const auto name = trim_ini_blanks(line.substr(1, line.size() - 2));
      group = name == "console_scripts" ? std::optional(ScriptKind::console)
              : name == "gui_scripts"   ? std::optional(ScriptKind::gui)
                                        : std::nullopt;
      continue;
    }
    if (!group) continue;
    const auto equals = line.find('=');
    if (equals == std::string_view::npos) return fail(line, "expected 'name = module:function'");
    ScriptEntryPoint entry;
    entry.kind = *group;
    entry.name = std::string(trim_ini_blanks(line.substr(0, equals)));
    auto value = trim_ini_blanks(line.substr(equals + 1));
    // `module:attr [extra1, extra2]`: extras only matter to installers that
    // resolve them; the wrapper ignores them (spec: "Use for scripts").
    if (const auto bracket = value.find('['); bracket != std::string_view::npos) {
      value = trim_ini_blanks(value.substr(0, bracket));
    }
    const auto colon = value.find(':');
    if (colon == std::string_view::npos) {
      return fail(line, "a script needs a callable: 'module:function'");
    }
    entry.module = std::string(trim_ini_blanks(value.substr(0, colon)));
    entry.attribute = std::string(trim_ini_blanks(value.substr(colon + 1)));
    if (!is_script_file_name(entry.name)) return fail(line, "the script name is not a file name");
    if (!is_dotted_identifier(entry.module) || !is_dotted_identifier(entry.attribute)) {
      return fail(line, "module and function must be dotted Python identifiers");
    }
    if (!names.insert(entry.name).second) return fail(line, "script '" + entry.name + "' twice");
    out.push_back(std::move(entry));
  }
  return out;
}

std::string script_wrapper(const ScriptEntryPoint& entry, std::string_view interpreter) {
  // distlib's ScriptMaker template, which pip uses; `from m import a` then
  // `a.b()` for a dotted attribute.
  const auto first = entry.attribute.substr(0, entry.attribute.find('.'));
  std::string out = "#!" + std::string(interpreter) + "\n";
  out += "# -*- coding: utf-8 -*-\n";
  out += "import re\n";
  out += "import sys\n";
  out += "from " + entry.module + " import " + first + "\n";
  out += "if __name__ == '__main__':\n";
  out += "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n";
  out += "    sys.exit(" + entry.attribute + "())\n";
  return out;
}

ShebangRewriter::ShebangRewriter(std::string_view interpreter)
    : m_shebang("#!" + std::string(interpreter) + "\n") {}

void ShebangRewriter::feed(std::span<const std::uint8_t> input, std::vector<std::uint8_t>& out) {
  if (m_state == State::deciding) {
    // Hold bytes until there are enough to compare with `#!python`.
    const auto take = std::min(input.size(), k_python_shebang.size() - m_held.size());
    m_held.insert(m_held.end(), input.begin(), input.begin() + static_cast<std::ptrdiff_t>(take));
    input = input.subspan(take);
    if (m_held.size() < k_python_shebang.size()) return;
    if (std::ranges::equal(m_held, k_python_shebang, [](std::uint8_t a, char b) {
          return a == static_cast<std::uint8_t>(b);
        })) {
      out.insert(out.end(), m_shebang.begin(), m_shebang.end());
      m_state = State::skipping_first_line;
    } else {
      out.insert(out.end(), m_held.begin(), m_held.end());
      m_state = State::copying;
    }
    m_held.clear();
  }
  if (m_state == State::skipping_first_line) {
    const auto newline = std::ranges::find(input, std::uint8_t{'\n'});
    if (newline == input.end()) return;
    input = input.subspan(static_cast<std::size_t>(newline - input.begin()) + 1);
    m_state = State::copying;
  }
  out.insert(out.end(), input.begin(), input.end());
}

void ShebangRewriter::finish(std::vector<std::uint8_t>& out) {
  // A file shorter than `#!python` is kept as it is.
  out.insert(out.end(), m_held.begin(), m_held.end());
  m_held.clear();
}

}  // namespace wheelmod::wheel
