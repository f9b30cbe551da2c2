// The easyconfig and module-file templates: mustache files under
// templates/ (shipped) that a site replaces one by one with
// `--templates DIR`, rendered with a JSON context so that what a writer
// hands to a template can be printed and tested on its own.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace wheelmod::emit {

class TemplateSet {
 public:
  /// Templates are looked up in `site_dir` first (when given), then in
  /// `shipped_dir`.
  explicit TemplateSet(std::filesystem::path shipped_dir,
                       std::optional<std::filesystem::path> site_dir = std::nullopt);

  /// Renders template `name` ("module.lua.mustache") with `context`: objects
  /// become mustache objects, arrays lists, strings/numbers text, booleans
  /// and null section switches. Nothing is HTML-escaped: `{{x}}` and
  /// `{{{x}}}` both insert the text as is, since the outputs are Python,
  /// Lua and Tcl, whose quoting the writers do themselves. Throws
  /// UsageError (exit 2) naming the template file when it is missing or
  /// does not parse.
  [[nodiscard]] std::string render(std::string_view name, const nlohmann::json& context) const;

  /// The file `name` resolves to.
  [[nodiscard]] std::filesystem::path locate(std::string_view name) const;

  /// The shipped templates: `$WHEELMOD_DATA_DIR/templates` when set, else
  /// `<exe>/../share/wheelmod/templates` if present, else the source tree's.
  static std::filesystem::path default_dir();

 private:
  std::filesystem::path m_shipped_dir;
  std::optional<std::filesystem::path> m_site_dir;
};

}  // namespace wheelmod::emit
