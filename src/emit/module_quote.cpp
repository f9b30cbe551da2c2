// Quoting text for the two module languages: Lua strings (Lmod) and Tcl
// words (Environment Modules, and Lmod's tcl2lua). Text from wheel
// metadata is the package author's; it must never run as code.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <ranges>
#include <string>

#include "core/strings.hpp"
#include "emit/module_writer.hpp"

namespace wheelmod::emit {

namespace {

bool plain_tcl(std::string_view text) {
  return !text.empty() && std::ranges::all_of(text, [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("./_-+:=@,%", c) != nullptr;
  });
}

}  // namespace

std::string lua_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\')
      out += std::string("\\") + c;
    else if (c == '\n')
      out += "\\n";
    else if (byte < 0x20 || byte == 0x7f)
      out += {'\\', static_cast<char>('0' + byte / 100), static_cast<char>('0' + byte / 10 % 10),
              static_cast<char>('0' + byte % 10)};  // Lua's \ddd is decimal; three digits, so
                                                    // a digit after it is not read as part of it
    else
      out += c;
  }
  return out + "\"";
}

std::string lua_long_string(std::string_view text) {
  // Lua reads a CR or CR LF in a long string as LF (Lua 5.1 §2.1, "any kind of end-of-line
  // sequence"): text holding one goes in a quoted string, which keeps it.
  if (text.find('\r') != std::string_view::npos) return lua_string(text);
  std::string with_end(text);
  with_end += ']';  // "...]=" followed by the closer would close early
  std::string level = "==";
  while (with_end.find("]" + level + "]") != std::string::npos) level += '=';
  return "[" + level + "[" + (text.starts_with('\n') ? "\n" : "") + std::string(text) + "]" +
         level + "]";
}

std::string tcl_text(std::string_view text) {
  // In braces nothing is substituted, but a brace or backslash would be
  // counted or kept; such text goes in quotes, where escapes are removed.
  // Control characters too: between braces a CR is read as a line end and ^Z stops `source`.
  const bool control = std::ranges::any_of(text, [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return (byte < 0x20 && c != '\n' && c != '\t') || byte == 0x7f;
  });
  if (control || text.find_first_of("{}\\") != std::string_view::npos) return tcl_quoted(text);
  return "{" + std::string(text) + "}";
}

std::string tcl_quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c != '\0' && std::strchr("\\$[]\"{}", c) != nullptr) {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += c;  // a quoted word may span lines; help text stays readable
    } else if (c == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      const char octal[] = {'\\', static_cast<char>('0' + (byte >> 6)),
                            static_cast<char>('0' + ((byte >> 3) & 7)),
                            static_cast<char>('0' + (byte & 7)), '\0'};
      out += octal;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string tcl_word(std::string_view text) {
  return plain_tcl(text) ? std::string(text) : tcl_quoted(text);
}

// Lmod does not run a Tcl module's commands: its tcl2lua.tcl (Lmod 8, libexec) evaluates the
// file with commands that print Lua, and some of them paste their arguments into that Lua
// unquoted. Two matter to what wheelmod writes:
//  - prepend-path/append-path (output-path-foo) write `prepend_path{"VAR","VALUE",...}` with the
//    value as it is: a double quote ends the Lua string (the rest runs as Lua), a backslash
//    starts a Lua escape, a line break leaves the string unfinished.
//  - extensions joins its arguments with "," and runs `eval cmdargs extensions <joined>`: the
//    joined text is parsed as Tcl a second time, so `[...]` and `$...` in it are substituted.
// Quoting for Tcl cannot help with either; such text must not be written at all.
// cmdargs (setenv, depends-on) escapes \ tab " and LF with a backslash, which Lua reads as an
// invalid escape for the tab, and trims trailing blanks; a CR leaves a Lua string unfinished; and
// Lmod re-reads bytes that are not UTF-8 as Latin-1. So: no control character, no blank at the
// end, UTF-8.
bool lmod_tcl_pasteable(std::string_view text) {
  if (text.ends_with(' ')) return false;
  for (std::size_t at = 0; at < text.size();) {
    const auto byte = static_cast<unsigned char>(text[at]);
    if (text[at] == '"' || text[at] == '\\' || byte < 0x20 || byte == 0x7f) return false;
    const auto length = utf8_length(text.substr(at));
    if (length == 0) return false;
    at += length;
  }
  return true;
}

bool lmod_tcl_extension_item(std::string_view text) {
  return !text.empty() && std::ranges::all_of(text, [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("._+-!/", c) != nullptr;
  });
}

}  // namespace wheelmod::emit
