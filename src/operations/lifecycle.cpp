#include "operations/lifecycle.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <system_error>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "core/utc.hpp"
#include "emit/module_writer.hpp"
#include "operations/site.hpp"
#include "prefix/provenance.hpp"
#include "prefix/staging.hpp"

namespace wheelmod::operations {

namespace fs = std::filesystem;

namespace {

std::string modified_utc(const fs::path& file) {
  std::error_code error;
  const auto written = fs::last_write_time(file, error);
  if (error) return "";
  const auto seconds =
      std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::file_clock::to_sys(written));
  return utc_text(std::chrono::system_clock::to_time_t(seconds));
}

std::optional<Installation> installation_at(const fs::path& software, const fs::path& prefix) {
  std::error_code error;
  if (!fs::exists(prefix / prefix::k_provenance_file, error)) return std::nullopt;
  prefix::Provenance provenance;
  try {
    provenance = prefix::read_provenance(prefix);
  } catch (const Error&) {
    return std::nullopt;  // a damaged file: not listed as wheelmod's, not removed as one
  }
  Installation out{.name = prefix.lexically_relative(software).generic_string(),
                   .prefix = prefix,
                   .toolchain = provenance.toolchain,
                   .accelerator = provenance.accelerator,
                   .torch = {},
                   .index = provenance.index,
                   .installed_at = modified_utc(prefix / prefix::k_provenance_file)};
  for (const auto& project : provenance.installed)
    if (project.name == "torch") out.torch = project.version;
  return out;
}

// Module files of the tree that load `name` (Lua `depends_on("N/V")`/`load("N/V")`, Tcl
// `depends-on N/V`/`module load N/V`).
std::vector<std::string> dependents(const fs::path& modulepath, const std::string& name,
                                    const fs::path& own_file) {
  std::vector<std::string> out;
  std::error_code error;
  const auto all = modulepath / "all";
  for (auto it = fs::recursive_directory_iterator(all, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (!it->is_regular_file(error) || it->path() == own_file) continue;
    std::optional<std::string> text;
    try {
      text = read_file_if_exists(it->path());
    } catch (const IoError&) {
      continue;
    }
    if (!text) continue;
    for (const auto& form : {"\"" + name + "\"", " " + name + "\n", " " + name + " "})
      if (text->find(form) != std::string::npos) {
        out.push_back(it->path().lexically_relative(all).generic_string());
        break;
      }
  }
  std::ranges::sort(out);
  return out;
}

}  // namespace

std::vector<Installation> list_installations(const std::string& eb_installpath) {
  const auto site = site_settings(eb_installpath);
  const fs::path software = site.software.value;
  std::vector<Installation> out;
  std::error_code error;
  for (const auto& name : fs::directory_iterator(software, error)) {
    if (!name.is_directory(error) || name.path().filename().string().starts_with(".")) continue;
    for (const auto& version : fs::directory_iterator(name.path(), error))
      if (auto found = installation_at(software, version.path())) out.push_back(std::move(*found));
  }
  std::ranges::sort(out, {}, &Installation::name);
  return out;
}

UninstallResult uninstall(const UninstallOptions& options, Reporter& reporter) {
  const auto site = site_settings(options.eb_installpath);
  const fs::path software = site.software.value;
  fs::path prefix = options.target;
  if (!prefix.is_absolute() && !fs::exists(prefix)) prefix = software / prefix;
  prefix = fs::absolute(prefix).lexically_normal();
  const auto found = installation_at(prefix.parent_path().parent_path(), prefix);
  if (!found)
    throw UsageError(options.target,
                     "not an installation wheelmod made (no " + prefix::k_provenance_file.string() +
                         " in " + prefix.string() + ")",
                     "`wheelmod list` shows them; remove others with the tool that made them");
  const std::string name = found->name;  // Name/version, as its module is named
  auto modulepath = options.modulepath.empty() ? emit::default_modulepath(prefix)
                                               : std::optional<fs::path>(options.modulepath);
  if (options.modulepath.empty() && site.modules.origin != "EasyBuild's default")
    modulepath = fs::path(site.modules.value);
  std::vector<fs::path> module_files;
  if (modulepath) {
    for (const auto* suffix : {".lua", ""}) {
      const auto file = *modulepath / "all" / (name + suffix);
      std::error_code error;
      if (fs::is_regular_file(file, error)) module_files.push_back(file);
    }
    const auto users = module_files.empty() ? std::vector<std::string>{}
                                            : dependents(*modulepath, name, module_files.front());
    if (!users.empty() && !options.force) {
      UsageError error(name,
                       std::to_string(users.size()) + " module" +
                           (users.size() == 1 ? " loads" : "s load") + " it",
                       "uninstall those first, or pass --force");
      for (const auto& user : users) error.with_detail(user);
      throw error;
    }
    // The moduleclass links that point at the file (<modulepath>/<class>/Name/version[.lua]).
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(*modulepath, error)) {
      if (entry.path().filename() == "all") continue;
      for (const auto* suffix : {".lua", ""}) {
        const auto link = entry.path() / (name + suffix);
        std::error_code link_error;
        if (fs::is_symlink(link, link_error)) module_files.push_back(link);
      }
    }
  }
  const auto eb_lock = easybuild::InstallLock::acquire(
      site.locks.value, prefix, site.lock_wait,
      [&reporter](const std::string& line) { reporter.on_note(line); });
  const auto lock =
      prefix::lock_prefix(prefix, [&reporter](const std::string& line) { reporter.on_note(line); });
  // The module first: a module that points at a prefix being removed would load a broken torch;
  // a prefix without its module is only unused.
  for (const auto& file : module_files) {
    std::error_code error;
    fs::remove(file, error);
    if (error)
      throw IoError(file.string(), "cannot remove: " + error.message(),
                    "check the permissions of the module tree");
  }
  // Renamed aside first, so that no half-removed tree is ever at the installation's path.
  const auto aside =
      prefix.parent_path() / ("." + prefix.filename().string() + ".wheelmod-removing");
  std::error_code error;
  fs::remove_all(aside, error);
  fs::rename(prefix, aside, error);
  if (error)
    throw IoError(prefix.string(), "cannot move aside for removal: " + error.message(),
                  "check the permissions of its parent directory");
  fs::remove_all(aside, error);
  reporter.on_note("removed " + prefix.string());
  return UninstallResult{.prefix = prefix, .module_files = module_files};
}

}  // namespace wheelmod::operations
