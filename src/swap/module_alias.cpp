#include "swap/module_alias.hpp"

#include <regex>
#include <sstream>
#include <system_error>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "swap/swapcheck.hpp"

namespace wheelmod::swap {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view k_previous = "-- wheelmod swap: previous ";

std::pair<std::string, std::string> split_module(const std::string& module) {
  const auto slash = module.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == module.size())
    throw UsageError(module, "not a full module name",
                     "give Name/version, e.g. PyTorch/2.7.1-foss-2024a");
  return {module.substr(0, slash), module.substr(slash + 1)};
}

// module_version("Target/ver", "canonical")
std::regex version_line(const std::string& version) {
  std::string escaped;
  for (const char c : version) {
    if (std::string_view(".^$|()[]{}*+?\\").find(c) != std::string_view::npos) escaped += '\\';
    escaped += c;
  }
  return std::regex(R"re(^\s*module_version\s*\(\s*"([^"]+)"\s*,\s*")re" + escaped +
                    R"re("\s*\)\s*$)re");
}

}  // namespace

ModuleAlias read_alias(const fs::path& modulepath, const std::string& canonical) {
  const auto [name, version] = split_module(canonical);
  ModuleAlias alias{modulepath / "all" / name / ".modulerc.lua", name, version, {}, {}};
  std::istringstream lines(read_file_if_exists(alias.rc_file).value_or(""));
  const auto pattern = version_line(version);
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (std::regex_match(line, match, pattern)) alias.target = match[1];
    if (line.starts_with(k_previous)) alias.previous = line.substr(k_previous.size());
  }
  return alias;
}

void write_alias(const ModuleAlias& alias, const std::string& target) {
  std::string kept;
  std::istringstream lines(read_file_if_exists(alias.rc_file).value_or(""));
  const auto pattern = version_line(alias.version);
  for (std::string line; std::getline(lines, line);)
    if (!std::regex_match(line, pattern) && !line.starts_with(k_previous) &&
        !line.starts_with("-- wheelmod swap:"))
      kept += line + "\n";
  std::string text = kept;
  text += "-- wheelmod swap: " + alias.name + "/" + alias.version +
          " is the build in use; `wheelmod swap --rollback` returns to the previous one\n";
  if (alias.target && *alias.target != target)
    text += std::string(k_previous) + *alias.target + "\n";
  else if (alias.previous)
    text += std::string(k_previous) + *alias.previous + "\n";
  text += "module_version(\"" + target + "\", \"" + alias.version + "\")\n";
  write_if_changed(alias.rc_file, text);
}

fs::path module_file(const fs::path& modulepath, const std::string& module) {
  const auto [name, version] = split_module(module);
  for (const auto& candidate :
       {modulepath / "all" / name / (version + ".lua"), modulepath / "all" / name / version}) {
    std::error_code error;
    if (fs::is_regular_file(candidate, error)) return candidate;
  }
  throw UsageError(module, "no module file under " + (modulepath / "all").string(),
                   "install it first (wheelmod install --module, or eb), or check --modulepath");
}

fs::path module_root(const fs::path& file) {
  static const std::regex lua(R"re(^\s*local\s+root\s*=\s*"([^"]+)")re");
  static const std::regex tcl(R"re(^\s*set\s+root\s+"?([^"\s]+)"?)re");
  std::istringstream lines(read_file_if_exists(file).value_or(""));
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (std::regex_search(line, match, lua) || std::regex_search(line, match, tcl))
      return fs::path(match[1].str());
  }
  throw UsageError(file.string(), "the module sets no root (`local root = \"...\"`)",
                   "swap works with modules written by EasyBuild or `wheelmod module`");
}

std::vector<fs::path> dependents_of(const fs::path& modulepath, const std::string& canonical) {
  const auto own = split_module(canonical).first;
  std::vector<fs::path> out;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(modulepath / "all", error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (!it->is_regular_file(error) || it->path().filename().string().starts_with(".")) continue;
    if (it->path().parent_path().filename() == own) continue;
    const auto text = read_file_if_exists(it->path()).value_or("");
    if (text.find("\"" + canonical + "\"") == std::string::npos &&
        text.find(" " + canonical + "\n") == std::string::npos)
      continue;
    try {
      out.push_back(module_root(it->path()));
    } catch (const UsageError&) {
      // a module without a root installs nothing to check
    }
  }
  return out;
}

}  // namespace wheelmod::swap
