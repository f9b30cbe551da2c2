// The easyconfig and module-file templates: mustache files shipped under templates/, which a
// site replaces one by one with `--templates DIR`, rendered from a JSON context that can be
// printed and tested on its own.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace wheelmod::emit {

class TemplateSet {
 public:
  /// Templates are looked up in `site_dir` (when given), then in `shipped_dir`.
  explicit TemplateSet(std::filesystem::path shipped_dir,
                       std::optional<std::filesystem::path> site_dir = std::nullopt);

  /// Renders template `name` ("module.lua.mustache") with `context`; booleans and null are
  /// section switches. Nothing is HTML-escaped (`{{x}}` inserts as `{{{x}}}` does): the outputs
  /// are Python, Lua and Tcl, which the writers quote themselves. Throws UsageError (exit 2)
  /// naming the template file when it is missing or does not parse.
  [[nodiscard]] std::string render(std::string_view name, const nlohmann::json& context) const;

  /// The file `name` resolves to.
  [[nodiscard]] std::filesystem::path locate(std::string_view name) const;

  /// The shipped templates: shipped_data_dir("templates") (core/files.hpp).
  static std::filesystem::path default_dir();

 private:
  std::filesystem::path m_shipped_dir;
  std::optional<std::filesystem::path> m_site_dir;
};

}  // namespace wheelmod::emit
