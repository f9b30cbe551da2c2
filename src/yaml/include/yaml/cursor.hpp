// A checked walk over a yaml-cpp tree, for every YAML file wheelmod reads (toolchain tables,
// mirror specs). Every node knows its file, key path and mark, so each error names
// `file:line:column` and the key path (`generations.2024a.cuda.version`).
#pragma once

#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace wheelmod::yaml {

/// Where a value is: file, 0-based mark (yaml-cpp's), key path.
struct Origin {
  std::string file;
  YAML::Mark mark;
  std::string path;
};

/// Throws UsageError `file:line:col` / `path: problem`.
[[noreturn]] void fail(const Origin& origin, std::string_view problem, std::string hint = {});

/// Whether YAML would read this plain scalar as a number or a boolean
/// (YAML 1.2 core schema, plus YAML 1.1's `1_000`, `0b1`, `1:30`, `yes`).
bool reads_as_non_string(std::string_view plain);

/// EasyBuildMNS `<name>/<version…>`: one `/`, no whitespace, both parts set.
bool is_module_name(std::string_view module);

class Cursor {
 public:
  /// The file's root document; parse errors become UsageErrors at their mark.
  static Cursor load_file(const std::filesystem::path& file);
  /// The same for `text` already read from `file` (named in errors).
  static Cursor load_text(const std::string& text, const std::filesystem::path& file);

  [[nodiscard]] const std::string& path() const { return m_path; }
  [[nodiscard]] bool is_null() const { return !m_node.IsDefined() || m_node.IsNull(); }

  /// The value's position, or its key's where the value has none (null).
  [[nodiscard]] Origin origin() const;
  /// The key's position (for "missing field" errors about the whole map).
  [[nodiscard]] Origin key_origin() const;
  [[noreturn]] void fail(std::string_view problem, std::string hint = {}) const;

  /// The entries of a mapping; with `allowed`, any other key is an error.
  [[nodiscard]] std::vector<Cursor> entries(std::initializer_list<std::string_view> allowed) const;
  [[nodiscard]] std::vector<Cursor> entries() const;
  /// The key this cursor was reached by (empty for the root and list items).
  [[nodiscard]] const std::string& key() const { return m_key; }
  /// Fails unless the key is a string to YAML (`'2024a'`, not `2024`).
  void require_string_key() const;

  [[nodiscard]] std::vector<Cursor> items() const;

  /// Any scalar as text. The readers below also serve as checks: their results may be dropped.
  std::string text() const;
  /// A scalar that is a string to YAML: quoted, or plain but not a number.
  std::string version() const;
  std::string module() const;          // an EasyBuildMNS module name
  [[nodiscard]] long integer() const;  // a plain integer
  /// A sequence of `text()` scalars, and one of `version()` scalars.
  [[nodiscard]] std::vector<std::string> texts() const;
  [[nodiscard]] std::vector<std::string> versions() const;

 private:
  Cursor(YAML::Node node, std::string file, std::string path, YAML::Mark key_mark, std::string key,
         std::string key_tag);
  [[nodiscard]] std::vector<Cursor> entries_checked(
      const std::initializer_list<std::string_view>* allowed) const;
  [[nodiscard]] std::string describe() const;  // "a map", "null", "12.6"

  YAML::Node m_node;
  std::string m_file;
  std::string m_path;
  YAML::Mark m_key_mark;
  std::string m_key;
  std::string m_key_tag;
};

/// The entry named `key`, or nullptr.
const Cursor* find(const std::vector<Cursor>& entries, std::string_view key);
/// The entry named `key`; its absence is an error at `map`'s key.
const Cursor& require(const Cursor& map, const std::vector<Cursor>& entries, std::string_view key);

/// The yaml-cpp wheelmod was built against (it has no run-time version call): "0.7.0".
std::string yaml_library_version();

}  // namespace wheelmod::yaml
