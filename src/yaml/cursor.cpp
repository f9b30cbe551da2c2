#include "yaml/cursor.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <fstream>
#include <set>
#include <sstream>

#include "core/errors.hpp"
#include "core/files.hpp"

namespace wheelmod::yaml {

namespace {

std::string quote_hint(std::string_view scalar) {
  return "write '" + std::string(scalar) +
         "' in quotes: YAML reads an unquoted version as a number (3.10 becomes 3.1)";
}

std::string position(const Origin& origin) {
  if (origin.mark.is_null()) return origin.file;
  return origin.file + ":" + std::to_string(origin.mark.line + 1) + ":" +
         std::to_string(origin.mark.column + 1);
}

// A key that would blur the dotted path (`GCC-13.3.0`) is shown quoted.
std::string path_segment(std::string_view key) {
  const bool plain = !key.empty() && std::ranges::all_of(key, [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_';
  });
  return plain ? std::string(key) : "'" + std::string(key) + "'";
}

bool all_of_chars(std::string_view s, std::string_view allowed) {
  return !s.empty() && s.find_first_not_of(allowed) == std::string_view::npos;
}

constexpr std::string_view k_digits = "0123456789_";

// Decimal int or float of YAML 1.2 core / 1.1: digits (and `_`), at most one
// dot, an optional exponent; sexagesimal `1:30` (1.1) too.
bool is_decimal_number(std::string_view s) {
  if (const auto e = s.find_first_of("eE"); e != std::string_view::npos) {
    auto exponent = s.substr(e + 1);
    if (!exponent.empty() && (exponent[0] == '+' || exponent[0] == '-')) {
      exponent.remove_prefix(1);
    }
    if (!all_of_chars(exponent, "0123456789")) return false;
    s = s.substr(0, e);
  }
  const auto dot = s.find('.');
  std::string_view whole = s.substr(0, dot);
  const std::string_view fraction =
      dot == std::string_view::npos ? std::string_view{} : s.substr(dot + 1);
  if (fraction.find_first_not_of(k_digits) != std::string_view::npos) return false;
  std::string_view digits_seen = whole;
  while (!whole.empty()) {  // `1:30:00` (base 60, YAML 1.1)
    const auto colon = whole.find(':');
    if (!all_of_chars(whole.substr(0, colon), k_digits)) return false;
    whole = colon == std::string_view::npos ? std::string_view{} : whole.substr(colon + 1);
  }
  return (digits_seen.find_first_of("0123456789") != std::string_view::npos ||
          fraction.find_first_of("0123456789") != std::string_view::npos);
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j < row.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

void fail(const Origin& origin, std::string_view problem, std::string hint) {
  std::string cause = origin.path.empty() ? std::string(problem) : origin.path + ": ";
  if (!origin.path.empty()) cause += problem;
  throw UsageError(position(origin), std::move(cause), std::move(hint));
}

bool reads_as_non_string(std::string_view plain) {
  // YAML 1.1 booleans (`yes`, `off`) and 1.2 ones; other tools read these files too.
  static constexpr std::array<std::string_view, 22> k_booleans = {
      "y",    "Y",    "yes",   "Yes",   "YES",   "n",  "N",  "no", "No",  "NO",  "true",
      "True", "TRUE", "false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF"};
  if (std::ranges::find(k_booleans, plain) != k_booleans.end()) return true;
  std::string_view s = plain;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  for (const auto special : {".inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN"}) {
    if (s == special) return true;
  }
  if (s.size() > 2 && s[0] == '0') {
    const auto rest = s.substr(2);
    if (s[1] == 'x') return all_of_chars(rest, "0123456789abcdefABCDEF_");
    if (s[1] == 'o') return all_of_chars(rest, "01234567_");
    if (s[1] == 'b') return all_of_chars(rest, "01_");
  }
  return is_decimal_number(s);
}

bool is_module_name(std::string_view module) {
  const auto slash = module.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == module.size()) return false;
  if (module.find('/', slash + 1) != std::string_view::npos) return false;
  return std::ranges::none_of(module, [](char c) {
    return std::isspace(static_cast<unsigned char>(c)) != 0 ||
           std::iscntrl(static_cast<unsigned char>(c)) != 0;
  });
}

Cursor::Cursor(YAML::Node node, std::string file, std::string path, YAML::Mark key_mark,
               std::string key, std::string key_tag)
    : m_node(std::move(node)),
      m_file(std::move(file)),
      m_path(std::move(path)),
      m_key_mark(key_mark),
      m_key(std::move(key)),
      m_key_tag(std::move(key_tag)) {}

Cursor Cursor::load_file(const std::filesystem::path& file) {
  return load_text(read_file(file), file);
}

Cursor Cursor::load_text(const std::string& text, const std::filesystem::path& file) {
  try {
    Cursor root(YAML::Load(text), file.string(), "", YAML::Mark(), "", "");
    if (root.is_null()) root.fail("the file is empty", "a config file starts with `schema: 1`");
    return root;
  } catch (const YAML::Exception& error) {
    yaml::fail(Origin{file.string(), error.mark, ""}, "invalid YAML: " + error.msg,
               "fix the YAML syntax at that position");
  }
}

Origin Cursor::origin() const {
  // yaml-cpp marks an empty value (`key:`) at the next token, often the next
  // line; the key is the better place to point at then.
  const bool has_mark = m_node.IsDefined() && !m_node.Mark().is_null() &&
                        (!m_node.IsNull() || m_node.Mark().line == m_key_mark.line);
  return Origin{m_file, has_mark ? m_node.Mark() : m_key_mark, m_path};
}

Origin Cursor::key_origin() const { return Origin{m_file, m_key_mark, m_path}; }

void Cursor::fail(std::string_view problem, std::string hint) const {
  yaml::fail(origin(), problem, std::move(hint));
}

std::string Cursor::describe() const {
  if (is_null()) return "null";
  if (m_node.IsMap()) return "a map";
  if (m_node.IsSequence()) return "a list";
  return m_node.Scalar();
}

std::vector<Cursor> Cursor::entries(std::initializer_list<std::string_view> allowed) const {
  return entries_checked(&allowed);
}

std::vector<Cursor> Cursor::entries() const { return entries_checked(nullptr); }

std::vector<Cursor> Cursor::entries_checked(
    const std::initializer_list<std::string_view>* allowed) const {
  if (!m_node.IsMap()) fail("expected a map, got " + describe());
  std::vector<Cursor> out;
  std::set<std::string> seen;
  for (const auto& pair : m_node) {
    const YAML::Node& key = pair.first;
    const Origin at{m_file, key.Mark(), m_path};
    if (!key.IsScalar()) yaml::fail(at, "a key must be a string");
    const std::string& name = key.Scalar();
    const std::string path =
        m_path.empty() ? path_segment(name) : m_path + "." + path_segment(name);
    // yaml-cpp keeps both entries of a duplicated key; EasyBuild would take one silently.
    if (!seen.insert(name).second) {
      yaml::fail(Origin{m_file, key.Mark(), path}, "duplicate key '" + name + "'");
    }
    if (allowed != nullptr && std::ranges::find(*allowed, name) == allowed->end()) {
      std::string hint;
      std::string known;
      for (const auto candidate : *allowed) {
        if (hint.empty() && edit_distance(candidate, name) <= 2) {
          hint = "did you mean '" + std::string(candidate) + "'? ";
        }
        known += known.empty() ? "" : ", ";
        known += candidate;
      }
      yaml::fail(Origin{m_file, key.Mark(), path}, "unknown key '" + name + "'",
                 hint + "known keys here: " + known);
    }
    out.push_back(Cursor(pair.second, m_file, path, key.Mark(), name, key.Tag()));
  }
  return out;
}

std::vector<Cursor> Cursor::items() const {
  if (!m_node.IsSequence()) fail("expected a list, got " + describe());
  std::vector<Cursor> out;
  std::size_t index = 0;
  for (const auto& item : m_node) {
    out.push_back(
        Cursor(item, m_file, m_path + "[" + std::to_string(index++) + "]", item.Mark(), "", ""));
  }
  return out;
}

std::string Cursor::text() const {
  if (!m_node.IsScalar()) fail("expected a string, got " + describe());
  return m_node.Scalar();
}

namespace {
// yaml-cpp 0.7 keeps every scalar as text; its tag tells how it was written:
// "?" plain, "!" quoted or block, or an explicit tag such as `!!str`.
bool is_yaml_string(std::string_view tag, std::string_view scalar) {
  return tag == "!" || tag == "tag:yaml.org,2002:str" ||
         (tag == "?" && !reads_as_non_string(scalar));
}
}  // namespace

void Cursor::require_string_key() const {
  if (!is_yaml_string(m_key_tag, m_key)) {
    yaml::fail(key_origin(), "expected a quoted name, got " + m_key, quote_hint(m_key));
  }
}

std::string Cursor::version() const {
  if (!m_node.IsScalar()) fail("expected a quoted version string, got " + describe());
  if (!is_yaml_string(m_node.Tag(), m_node.Scalar())) {
    fail("expected a quoted version string, got " + m_node.Scalar(), quote_hint(m_node.Scalar()));
  }
  if (m_node.Scalar().empty()) fail("expected a version, got an empty string");
  return m_node.Scalar();
}

std::string Cursor::module() const {
  std::string name = text();
  if (!is_module_name(name)) {
    fail("'" + name + "' is not an EasyBuild module name",
         "write <name>/<version>[<suffix>] as EasyBuildMNS names it: exactly one '/', no "
         "whitespace, neither part empty (e.g. 'cuDNN/9.5.0.50-CUDA-12.6.0')");
  }
  return name;
}

long Cursor::integer() const {
  if (!m_node.IsScalar()) fail("expected an integer, got " + describe());
  if (m_node.Tag() != "?")
    fail("expected an unquoted integer, got the string '" + describe() + "'");
  const std::string& s = m_node.Scalar();
  long value = 0;
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (error != std::errc{} || end != s.data() + s.size()) {
    fail("expected an integer, got " + s);
  }
  return value;
}

std::vector<std::string> Cursor::texts() const {
  std::vector<std::string> out;
  for (const auto& item : items()) out.push_back(item.text());
  return out;
}

std::vector<std::string> Cursor::versions() const {
  std::vector<std::string> out;
  for (const auto& item : items()) out.push_back(item.version());
  return out;
}

const Cursor* find(const std::vector<Cursor>& entries, std::string_view key) {
  const auto it = std::ranges::find_if(entries, [&](const Cursor& c) { return c.key() == key; });
  return it == entries.end() ? nullptr : &*it;
}

const Cursor& require(const Cursor& map, const std::vector<Cursor>& entries, std::string_view key) {
  const Cursor* found = find(entries, key);
  if (found == nullptr) {
    yaml::fail(map.key_origin(), "missing required field '" + std::string(key) + "'");
  }
  return *found;
}

std::string yaml_library_version() { return WHEELMOD_YAML_CPP_VERSION; }

}  // namespace wheelmod::yaml
