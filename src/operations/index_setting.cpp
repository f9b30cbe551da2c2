#include "operations/index_setting.hpp"

#include <filesystem>
#include <optional>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "core/url.hpp"
#include "yaml/cursor.hpp"

namespace wheelmod::operations {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view k_default_index = "https://download.pytorch.org/whl";

std::vector<std::string> split_paths(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto colon = text.find(':', start);
    auto part = text.substr(start, colon == std::string::npos ? colon : colon - start);
    if (!part.empty()) out.push_back(std::move(part));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return out;
}

// An index URL as --index takes it, absolute: an http(s) URL with a host, a file:/// URL or an
// absolute path (a relative one would mean another directory for each working directory).
bool is_index_url(const std::string& url) {
  const Url parsed(url);
  if (parsed.is_http()) return !parsed.host().empty();
  if (parsed.scheme() == "file") return parsed.path().starts_with('/');
  return !parsed.has_authority() && parsed.scheme().empty() && url.starts_with('/');
}

// The `index` of one configuration file, nullopt when it sets none.
std::optional<IndexSetting> index_of(const std::string& file) {
  const auto text = read_file(file);
  // A file of comments only (one that documents the keys and sets none) sets nothing.
  bool empty = true;
  for (std::size_t start = 0; start < text.size() && empty;) {
    const auto end = std::min(text.find('\n', start), text.size());
    const auto line = text.substr(start, end - start);
    const auto first = line.find_first_not_of(" \t\r");
    empty = first == std::string::npos || line[first] == '#';
    start = end + 1;
  }
  if (empty) return std::nullopt;
  const auto root = yaml::Cursor::load_text(text, file);
  for (const auto& entry : root.entries({"index"})) {
    if (entry.key() != "index") continue;
    const auto url = entry.text();
    if (!is_index_url(url))
      entry.fail("'" + mask_credentials(url) + "' is not an index URL",
                 "write an https:// or http:// URL, a file:///absolute/path URL or an absolute "
                 "path, e.g. index: https://proxy.example.org/whl");
    const auto origin = entry.origin();
    return IndexSetting{url, file + ":" + std::to_string(origin.mark.line + 1)};
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::string> config_files(const easybuild::Getenv& getenv) {
  if (const auto file = getenv("WHEELMOD_CONFIG_FILE"); file && !file->empty()) return {*file};
  std::vector<std::string> candidates;
  const auto config_home = getenv("XDG_CONFIG_HOME");
  const auto home = getenv("HOME");
  if (config_home && !config_home->empty())
    candidates.push_back(*config_home + "/wheelmod/config.yaml");
  else if (home && !home->empty())
    candidates.push_back(*home + "/.config/wheelmod/config.yaml");
  const auto dirs = getenv("XDG_CONFIG_DIRS");
  for (const auto& dir : split_paths(dirs && !dirs->empty() ? *dirs : "/etc/xdg"))
    candidates.push_back(dir + "/wheelmod/config.yaml");
  candidates.emplace_back("/etc/wheelmod/config.yaml");
  std::vector<std::string> out;
  for (auto& file : candidates) {
    std::error_code error;
    if (fs::exists(file, error)) out.push_back(std::move(file));
  }
  return out;
}

IndexSetting index_setting(const std::string& given, const easybuild::Getenv& getenv) {
  if (!given.empty()) return {given, "--index"};
  if (const auto url = getenv("WHEELMOD_INDEX_URL"); url && !url->empty()) {
    if (!is_index_url(to_url(*url)))
      throw UsageError("WHEELMOD_INDEX_URL=" + mask_credentials(*url), "not an index URL",
                       "set it to an https:// or http:// URL, a file:///absolute/path URL or a "
                       "path, or unset it");
    return {*url, "$WHEELMOD_INDEX_URL"};
  }
  const auto files = config_files(getenv);
  // An explicitly named file that is not there is a mistake, not "no setting".
  if (const auto named = getenv("WHEELMOD_CONFIG_FILE"); named && !named->empty()) {
    std::error_code error;
    if (!fs::exists(*named, error))
      throw UsageError("WHEELMOD_CONFIG_FILE=" + *named, "no such file",
                       "point it at wheelmod's configuration file, or unset it");
  }
  for (const auto& file : files)
    if (auto setting = index_of(file)) return std::move(*setting);
  return {std::string(k_default_index), "the default"};
}

}  // namespace wheelmod::operations
