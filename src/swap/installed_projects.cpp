#include "swap/installed_projects.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <system_error>

#include "core/files.hpp"
#include "pep/metadata.hpp"
#include "pep/name.hpp"

namespace wheelmod::swap {

namespace fs = std::filesystem;

namespace {

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
    text.remove_suffix(1);
  return text;
}

std::optional<InstalledProject> from_core_metadata(const std::string& text,
                                                   std::vector<pep::Requirement> requirements,
                                                   std::string metadata) {
  const auto parsed = pep::CoreMetadata::parse(text);
  if (!parsed || parsed->name.empty()) return std::nullopt;
  InstalledProject out{parsed->name, parsed->version.str(), std::move(requirements),
                       std::move(metadata)};
  // An egg-info's PKG-INFO carries no Requires-Dist (they are in requires.txt); a dist-info's
  // METADATA does.
  if (out.requirements.empty()) out.requirements = parsed->requires_dist;
  return out;
}

}  // namespace

std::vector<fs::path> python_directories(const fs::path& prefix) {
  std::vector<fs::path> out;
  std::error_code error;
  for (const auto* lib : {"lib", "lib64", "local/lib"}) {
    std::vector<fs::path> pythons;
    for (const auto& entry : fs::directory_iterator(prefix / lib, error))
      if (entry.path().filename().string().starts_with("python")) pythons.push_back(entry.path());
    std::ranges::sort(pythons);
    for (const auto& python : pythons)
      for (const auto* kind : {"site-packages", "dist-packages"})
        if (fs::is_directory(python / kind, error)) out.push_back(python / kind);
  }
  return out;
}

std::string python_of(const fs::path& site) {
  const auto name = site.parent_path().filename().string();  // python3.12
  if (name.starts_with("python") && name.find('.') != std::string::npos) return name.substr(6);
  std::string best;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(site.parent_path().parent_path(), error)) {
    const auto sibling = entry.path().filename().string();
    if (!sibling.starts_with("python3.")) continue;
    const auto version = sibling.substr(6);
    const auto minor = [](const std::string& v) { return std::stoi(v.substr(2)); };
    if (version.size() > 2 && std::isdigit(static_cast<unsigned char>(version[2])) &&
        (best.empty() || minor(version) > minor(best)))
      best = version;
  }
  return best;
}

std::vector<pep::Requirement> parse_requires_txt(std::string_view text) {
  std::vector<pep::Requirement> out;
  std::string condition;  // of the current section, "" before any
  while (!text.empty()) {
    const auto end = text.find('\n');
    const auto line = trimmed(text.substr(0, end));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (line.empty() || line.front() == '#') continue;
    if (line.front() == '[' && line.back() == ']') {
      const auto section = line.substr(1, line.size() - 2);
      const auto colon = section.find(':');
      const auto extra = trimmed(section.substr(0, colon));
      const auto markers =
          colon == std::string_view::npos ? std::string_view() : trimmed(section.substr(colon + 1));
      condition.clear();
      if (!extra.empty()) condition = "extra == \"" + std::string(extra) + "\"";
      if (!markers.empty())
        condition += (condition.empty() ? "" : " and ") + ("(" + std::string(markers) + ")");
      continue;
    }
    std::string requirement(line);
    if (!condition.empty()) {
      // A line with its own marker keeps it, joined with the section's.
      if (const auto semicolon = requirement.find(';'); semicolon != std::string::npos)
        requirement = requirement.substr(0, semicolon) + "; (" + requirement.substr(semicolon + 1) +
                      ") and " + condition;
      else
        requirement += "; " + condition;
    }
    if (auto parsed = pep::Requirement::parse(requirement)) out.push_back(std::move(*parsed));
  }
  return out;
}

std::vector<InstalledProject> installed_projects(const fs::path& site) {
  std::map<std::string, InstalledProject> by_name;  // canonical name -> project
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(site, error)) {
    const auto file_name = entry.path().filename().string();
    std::optional<InstalledProject> project;
    try {
      if (file_name.ends_with(".dist-info")) {
        project = from_core_metadata(read_file_if_exists(entry.path() / "METADATA").value_or(""),
                                     {}, file_name);
      } else if (file_name.ends_with(".egg-info")) {
        const bool directory = entry.is_directory(error);
        const auto pkg_info = directory ? entry.path() / "PKG-INFO" : entry.path();
        auto requirements =
            directory ? parse_requires_txt(
                            read_file_if_exists(entry.path() / "requires.txt").value_or(""))
                      : std::vector<pep::Requirement>{};
        project = from_core_metadata(read_file_if_exists(pkg_info).value_or(""),
                                     std::move(requirements), file_name);
      }
    } catch (const std::exception&) {
      continue;  // unreadable: not a distribution we can say anything about
    }
    if (!project) continue;
    const auto key = pep::canonicalize_name(project->name);
    const auto found = by_name.find(key);
    if (found == by_name.end() || (!found->second.metadata.ends_with(".dist-info") &&
                                   project->metadata.ends_with(".dist-info")))
      by_name.insert_or_assign(key, std::move(*project));
  }
  std::vector<InstalledProject> out;
  for (auto& [key, project] : by_name) out.push_back(std::move(project));
  return out;
}

}  // namespace wheelmod::swap
