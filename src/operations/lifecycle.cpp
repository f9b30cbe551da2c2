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
  // A damaged or edited file throws (UsageError naming the field): list warns and goes on,
  // uninstall refuses to remove what it cannot tell is wheelmod's.
  const auto provenance = prefix::read_provenance(prefix);
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
std::vector<std::string> dependents(const fs::path& all, const std::string& name,
                                    const fs::path& own_file) {
  std::vector<std::string> out;
  std::error_code error;
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

// The module files below `all` whose root is `prefix` (the templates' `local root = "..."` and
// `set root ...` lines), in path order. Links are skipped: they are moduleclass links.
std::vector<fs::path> module_files_of(const fs::path& all, const fs::path& prefix) {
  const std::string lua = "local root = " + emit::lua_string(prefix.string()) + "\n";
  const std::string tcl = "set root " + emit::tcl_word(prefix.string()) + "\n";
  std::vector<fs::path> out;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(all, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (!it->is_regular_file(error) || it->is_symlink(error)) continue;
    std::optional<std::string> text;
    try {
      text = read_file_if_exists(it->path());
    } catch (const IoError&) {
      continue;
    }
    if (text && (text->find(lua) != std::string::npos || text->find(tcl) != std::string::npos))
      out.push_back(it->path());
  }
  std::ranges::sort(out);
  return out;
}

}  // namespace

std::vector<Installation> list_installations(const std::string& eb_installpath,
                                             Reporter& reporter) {
  const auto site = site_settings(eb_installpath);
  const fs::path software = site.software.value;
  std::vector<Installation> out;
  std::error_code error;
  for (const auto& name : fs::directory_iterator(software, error)) {
    if (!name.is_directory(error) || name.path().filename().string().starts_with(".")) continue;
    for (const auto& version : fs::directory_iterator(name.path(), error)) try {
        if (auto found = installation_at(software, version.path()))
          out.push_back(std::move(*found));
      } catch (const UsageError& damaged) {
        reporter.on_warning("not listed: " + damaged.subject() + ": " + damaged.cause());
      }
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
  // The module tree as install and module choose it (site.hpp, module_layout); its files are
  // found by their root, whatever the naming scheme put them under.
  const auto layout = module_layout(site, {"", std::nullopt, options.modulepath}, {}, prefix);
  std::vector<fs::path> module_files;
  if (layout.modulepath) {
    const auto all = *layout.modulepath / layout.suffix;
    auto owned = module_files_of(all, prefix);
    for (const auto& file : owned) {
      // Name/version, as the module is loaded (the last two parts under every scheme; Lmod
      // drops ".lua"; a Tcl file's name may hold dots, so no stem()).
      auto module_name = (file.parent_path().filename() / file.filename()).generic_string();
      if (module_name.ends_with(".lua")) module_name.resize(module_name.size() - 4);
      const auto users = dependents(all, module_name, file);
      if (!users.empty() && !options.force) {
        UsageError error(module_name,
                         std::to_string(users.size()) + " module" +
                             (users.size() == 1 ? " loads" : "s load") + " it",
                         "uninstall those first, or pass --force");
        for (const auto& user : users) error.with_detail(user);
        throw error;
      }
    }
    // The moduleclass links that point at them (<modulepath>/<class>/Name/version[.lua]).
    std::error_code error;
    for (const auto& file : owned) {
      const auto relative = file.lexically_relative(all);
      for (const auto& entry : fs::directory_iterator(*layout.modulepath, error)) {
        if (entry.path() == all) continue;
        const auto link = entry.path() / relative;
        std::error_code link_error;
        if (fs::is_symlink(link, link_error) && fs::equivalent(link, file, link_error))
          module_files.push_back(link);
      }
    }
    module_files.insert(module_files.begin(), owned.begin(), owned.end());
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
