#include "easybuild/eb_settings.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <system_error>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "core/strings.hpp"

namespace wheelmod::easybuild {

namespace fs = std::filesystem;

namespace {

std::string trim(std::string_view text) {
  const auto begin = text.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) return {};
  const auto end = text.find_last_not_of(" \t\r");
  return std::string(text.substr(begin, end - begin + 1));
}

// `installpath_software` and `INSTALLPATH_SOFTWARE` name the option `installpath-software`.
std::string option_name(std::string_view key) {
  std::string out;
  for (const char c : key) out += c == '_' ? '-' : ascii_lower(c);
  return out;
}

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = text.find(separator, start);
    auto part = trim(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (!part.empty()) out.push_back(std::move(part));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return out;
}

// The files `eb` reads when EASYBUILD_CONFIGFILES is not set, lowest priority first
// (easybuild/tools/options.py: DEFAULT_SYS_CFGFILES reversed, then DEFAULT_USER_CFGFILE).
std::vector<std::string> default_files(const Getenv& getenv, const std::string& home) {
  const auto dirs_value = getenv("XDG_CONFIG_DIRS");
  const auto dirs = split(dirs_value.value_or("/etc/xdg"), ':');
  std::vector<std::string> out;
  for (auto dir = dirs.rbegin(); dir != dirs.rend(); ++dir) {
    std::vector<std::string> found;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(fs::path(*dir) / "easybuild.d", error))
      if (entry.path().extension() == ".cfg") found.push_back(entry.path().string());
    std::ranges::sort(found);
    out.insert(out.end(), found.begin(), found.end());
  }
  const auto config_home = getenv("XDG_CONFIG_HOME");
  const fs::path user =
      fs::path(config_home && !config_home->empty() ? *config_home : home + "/.config") /
      "easybuild" / "config.cfg";
  std::error_code error;
  if (fs::exists(user, error)) out.push_back(user.string());
  return out;
}

// Options EasyBuild expands `~` and `$HOME`-style in: the paths wheelmod reads.
std::string expand_home(std::string value, const std::string& home) {
  if (value == "~" || value.starts_with("~/")) value = home + value.substr(1);
  return value;
}

}  // namespace

std::optional<std::map<std::string, std::pair<std::string, std::string>>> parse_config_file(
    std::string_view text, std::string& error) {
  std::map<std::string, std::pair<std::string, std::string>> out;  // option -> (value, section)
  std::string section;
  std::size_t number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    const auto line = trim(text.substr(start, end == std::string_view::npos ? end : end - start));
    start = end == std::string_view::npos ? text.size() : end + 1;
    ++number;
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (line.front() == '[') {
      if (line.back() != ']') {
        error = "line " + std::to_string(number) + ": a section header must end in ']'";
        return std::nullopt;
      }
      section = trim(std::string_view(line).substr(1, line.size() - 2));
      continue;
    }
    const auto separator = line.find_first_of("=:");
    if (separator == std::string::npos || separator == 0) {
      error = "line " + std::to_string(number) + ": expected `option = value`, got '" + line + "'";
      return std::nullopt;
    }
    out[option_name(trim(std::string_view(line).substr(0, separator)))] = {
        trim(std::string_view(line).substr(separator + 1)), section};
  }
  return out;
}

EasyBuildSettings EasyBuildSettings::read(const Getenv& getenv) {
  EasyBuildSettings settings;
  settings.m_home = getenv("HOME").value_or("");
  std::vector<std::string> files;
  if (const auto listed = getenv("EASYBUILD_CONFIGFILES"))
    files = split(*listed, ',');
  else
    files = default_files(getenv, settings.m_home);
  for (const auto& file : files) {
    const auto text = read_file_if_exists(file);
    if (!text)
      throw UsageError(file, "EasyBuild configuration file not found",
                       "EASYBUILD_CONFIGFILES names files that must exist, as eb requires");
    std::string error;
    const auto parsed = parse_config_file(*text, error);
    if (!parsed)
      throw UsageError(file, "not a valid EasyBuild configuration file: " + error,
                       "eb reads the same file; fix it there");
    for (const auto& [option, entry] : *parsed)
      settings.m_settings[option] =
          Setting{expand_home(entry.first, settings.m_home),
                  file + (entry.second.empty() ? "" : " [" + entry.second + "]")};
    settings.m_files.push_back(file);
  }
  // EASYBUILD_<OPTION>: upper case, '-' as '_' (docs.easybuild.io/configuration).
  for (const auto* option :
       {"installpath", "installpath-software", "installpath-modules", "prefix", "sourcepath",
        "module-syntax", "module-naming-scheme", "suffix-modules-path", "locks-dir",
        "subdir-software", "subdir-modules", "wait-on-lock-limit", "wait-on-lock-interval"}) {
    std::string variable = "EASYBUILD_";
    for (const char c : std::string_view(option)) variable += c == '-' ? '_' : ascii_upper(c);
    if (const auto value = getenv(variable); value && !value->empty())
      settings.m_settings[option] = Setting{expand_home(*value, settings.m_home), "$" + variable};
  }
  return settings;
}

std::optional<Setting> EasyBuildSettings::get(std::string_view option) const {
  if (const auto it = m_settings.find(option); it != m_settings.end()) return it->second;
  return std::nullopt;
}

namespace {

Setting install_subpath(const EasyBuildSettings& settings, std::string_view kind,
                        const std::string& home) {
  if (auto direct = settings.get("installpath-" + std::string(kind))) return *direct;
  const auto subdir = settings.get("subdir-" + std::string(kind));
  const std::string leaf = subdir ? subdir->value : std::string(kind);
  if (const auto installpath = settings.get("installpath"))
    return {(fs::path(installpath->value) / leaf).string(), installpath->origin};
  if (const auto prefix = settings.get("prefix"))
    return {(fs::path(prefix->value) / leaf).string(), prefix->origin + " (prefix)"};
  return {(fs::path(home) / ".local" / "easybuild" / leaf).string(), "EasyBuild's default"};
}

}  // namespace

Setting EasyBuildSettings::software_path() const {
  return install_subpath(*this, "software", m_home);
}

Setting EasyBuildSettings::modules_path() const {
  return install_subpath(*this, "modules", m_home);
}

Setting EasyBuildSettings::locks_dir() const {
  if (auto direct = get("locks-dir")) return *direct;
  const auto software = software_path();
  return {(fs::path(software.value) / ".locks").string(), software.origin};
}

}  // namespace wheelmod::easybuild
