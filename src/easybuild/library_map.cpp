#include "easybuild/library_map.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <system_error>

#include "core/strings.hpp"

namespace wheelmod::easybuild {

namespace fs = std::filesystem;

namespace {

std::string converted_name(std::string_view software_name) {
  std::string out;
  for (const char c : software_name) {
    if (c == '+')
      out += "PLUS";
    else if (c == '-')
      out += "MIN";
    else if (c != '.')
      out += ascii_upper(c);
  }
  return out;
}

bool directory_exists(const fs::path& path) {
  std::error_code error;
  return fs::is_directory(path, error);
}

// True when `path` is `base` or below it (both lexically normal).
bool is_within(const fs::path& path, const fs::path& base) {
  const auto relative = path.lexically_relative(base);
  return !relative.empty() && *relative.begin() != "..";
}

// "$ORIGIN/x" or "${ORIGIN}/x" -> the rest after the token ("/x"), else nullopt.
std::optional<std::string_view> after_origin(std::string_view entry) {
  for (const std::string_view token : {"$ORIGIN", "${ORIGIN}"})
    if (entry.starts_with(token) && (entry.size() == token.size() || entry[token.size()] == '/'))
      return entry.substr(token.size());
  return std::nullopt;
}

const CudaLibrary* library_for(const Generation& generation, const std::string& wheel_dir,
                               std::string& package) {
  for (const auto& [name, library] : generation.cuda_libraries) {
    if (library.wheel_libdir == wheel_dir ||
        std::ranges::find(library.wheel_libdir_aliases, wheel_dir) !=
            library.wheel_libdir_aliases.end()) {
      package = name;
      return &library;
    }
  }
  return nullptr;
}

EntryPlan map_wheel_dir(const std::string& entry, const std::string& package,
                        const CudaLibrary& library, const std::vector<std::string>& modules,
                        const ModuleLocator& locator) {
  // The modules the resolution chose first; then any provider the site has.
  std::vector<const LibraryProvider*> order;
  for (const auto& provider : library.provided_by)
    if (std::ranges::find(modules, provider.module) != modules.end()) order.push_back(&provider);
  for (const auto& provider : library.provided_by)
    if (std::ranges::find(order, &provider) == order.end()) order.push_back(&provider);
  for (const auto* provider : order) {
    if (const auto root = locator.root_of(provider->module)) {
      return EntryPlan{.entry = entry,
                       .action = EntryAction::mapped,
                       .replacement = (*root / provider->libdir).lexically_normal().string(),
                       .provider = provider->module,
                       .note = package + " is provided by " + provider->module};
    }
  }
  std::string wanted;
  for (const auto& provider : library.provided_by)
    wanted += (wanted.empty() ? "" : ", ") + provider.module;
  return EntryPlan{.entry = entry,
                   .action = EntryAction::unmapped,
                   .replacement = {},
                   .provider = package,
                   .note = wanted.empty()
                               ? package + ": no module of this generation provides it"
                               : package + ": none of its modules is installed (" + wanted + ")"};
}

std::vector<std::string> all_wheel_dirs(const CudaLibrary& library) {
  std::vector<std::string> dirs{library.wheel_libdir};
  dirs.insert(dirs.end(), library.wheel_libdir_aliases.begin(), library.wheel_libdir_aliases.end());
  return dirs;
}

EntryPlan plan_entry(const std::string& entry, const FileLocation& location,
                     const Generation& generation, const std::vector<std::string>& modules,
                     const ModuleLocator& locator) {
  const auto kept = [&](std::string note) {
    return EntryPlan{.entry = entry,
                     .action = EntryAction::kept,
                     .replacement = entry,
                     .provider = {},
                     .note = std::move(note)};
  };
  const auto dropped = [&](std::string note) {
    return EntryPlan{.entry = entry,
                     .action = EntryAction::dropped,
                     .replacement = {},
                     .provider = {},
                     .note = std::move(note)};
  };
  // ld.so(8): an empty entry and a relative one are searched relative to
  // the process's working directory — never what an installation means.
  if (entry.empty()) return dropped("an empty entry means the current directory");
  // ld.so(8) expands $LIB and $PLATFORM per machine: judged there, not here.
  for (const std::string_view token : {"$LIB", "${LIB}", "$PLATFORM", "${PLATFORM}"})
    if (entry.find(token) != std::string::npos)
      return kept("$LIB / $PLATFORM depend on the machine; kept as written");
  const auto rest = after_origin(entry);
  if (!rest) {
    if (entry.front() != '/') return dropped("relative to the working directory, not the file");
    return directory_exists(entry) ? kept("an existing directory outside the installation")
                                   : dropped("no such directory");
  }
  const fs::path target =
      (location.directory / fs::path(std::string(*rest)).relative_path()).lexically_normal();
  const auto wheel_dir = target.lexically_relative(location.site_packages).generic_string();
  std::string package;
  if (is_within(target, location.site_packages)) {
    if (const auto* library = library_for(generation, wheel_dir, package)) {
      if (directory_exists(target)) return kept(package + " is installed in the prefix");
      // A bundled wheel fills one of its directories; the others it might
      // have had (torch also names `cusparselt/lib`) are then no module's.
      for (const auto& other : all_wheel_dirs(*library))
        if (directory_exists(location.site_packages / other))
          return dropped(package + " is installed in the prefix at " + other);
      return map_wheel_dir(entry, package, *library, modules, locator);
    }
  }
  if (!is_within(target, location.prefix) && target != location.prefix)
    return dropped("points outside the installation");
  return directory_exists(target) ? kept("inside the installation") : dropped("nothing there");
}

const CudaLibrary* library_with_soname(const Generation& generation, const std::string& soname,
                                       std::string& package) {
  for (const auto& [name, library] : generation.cuda_libraries) {
    if (std::ranges::find(library.libraries, soname) != library.libraries.end()) {
      package = name;
      return &library;
    }
  }
  return nullptr;
}

// Whether a search-path entry of the new path, as ld.so expands it for this
// file, is a directory holding `soname`.
bool holds_file(const FileLocation& location, const std::string& entry, const std::string& soname) {
  fs::path directory(entry);
  if (const auto rest = after_origin(entry))
    directory = location.directory / fs::path(std::string(*rest)).relative_path();
  else if (entry.empty() || entry.front() != '/')
    return false;
  std::error_code error;
  return fs::exists(directory / soname, error);
}

EntryPlan directory_for_needed(const std::string& soname, const std::string& package,
                               const CudaLibrary& library, const FileLocation& location,
                               const std::vector<std::string>& modules,
                               const ModuleLocator& locator) {
  for (const auto& wheel_dir : all_wheel_dirs(library)) {
    const fs::path bundled = location.site_packages / wheel_dir;
    std::error_code error;
    if (!fs::exists(bundled / soname, error)) continue;
    const auto relative = bundled.lexically_relative(location.directory).generic_string();
    return EntryPlan{.entry = {},
                     .action = EntryAction::added,
                     .replacement = relative == "." ? "$ORIGIN" : "$ORIGIN/" + relative,
                     .provider = {},
                     .note = soname + " is needed; " + package + " is installed in the prefix"};
  }
  auto plan = map_wheel_dir({}, package, library, modules, locator);
  if (plan.action == EntryAction::mapped) {
    plan.action = EntryAction::added;
    plan.note = soname + " is needed and no entry reached it; " + plan.note;
  } else {
    plan.note = soname + " is needed; " + plan.note;
  }
  return plan;
}

}  // namespace

std::string root_variable(std::string_view software_name) {
  return "EBROOT" + converted_name(software_name);
}

std::string version_variable(std::string_view software_name) {
  return "EBVERSION" + converted_name(software_name);
}

std::string extslist_variable(std::string_view software_name) {
  return "EBEXTSLIST" + converted_name(software_name);
}

std::optional<fs::path> ModuleLocator::root_of(std::string_view module) const {
  const auto slash = module.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const std::string name(module.substr(0, slash));
  const std::string version(module.substr(slash + 1));
  // Absolute, always: a relative RPATH entry would be searched relative to
  // whatever directory the program is started from.
  if (software_root) {
    const auto directory = (fs::absolute(*software_root) / name / version).lexically_normal();
    if (directory_exists(directory)) return directory;
  }
  if (!getenv) return std::nullopt;
  const auto root = getenv(root_variable(name));
  const auto loaded = getenv(version_variable(name));
  // EBVERSION holds the easyconfig's version (9.5.1.17); the module's
  // version adds the toolchain and suffix (9.5.1.17-CUDA-12.6.0).
  if (!root || !loaded || root->empty() || !version.starts_with(*loaded) ||
      (version.size() > loaded->size() && version[loaded->size()] != '-'))
    return std::nullopt;
  if (!directory_exists(*root)) return std::nullopt;
  return fs::absolute(*root).lexically_normal();
}

ModuleLocator environment_locator(std::optional<fs::path> software_root, Getenv getenv) {
  return ModuleLocator{.software_root = std::move(software_root), .getenv = std::move(getenv)};
}

std::string_view action_text(EntryAction action) {
  switch (action) {
    case EntryAction::kept:
      return "kept";
    case EntryAction::mapped:
      return "mapped";
    case EntryAction::dropped:
      return "dropped";
    case EntryAction::unmapped:
      return "unmapped";
    case EntryAction::added:
      return "added";
  }
  return "kept";
}

bool SearchPathPlan::complete() const {
  return std::ranges::none_of(
      entries, [](const EntryPlan& entry) { return entry.action == EntryAction::unmapped; });
}

SearchPathPlan plan_search_path(std::optional<std::string_view> old_value,
                                const FileLocation& location, const Generation& generation,
                                const std::vector<std::string>& modules,
                                const ModuleLocator& locator,
                                const std::vector<std::string>& needed) {
  SearchPathPlan plan;
  std::vector<std::string> seen;
  std::size_t start = 0;
  for (; old_value;) {
    const auto colon = old_value->find(':', start);
    const std::string entry(old_value->substr(start, colon - start));
    auto entry_plan = plan_entry(entry, location, generation, modules, locator);
    // Several nvidia-* directories map to one module directory (cuBLAS,
    // cuFFT, ... are all CUDA/lib64): it is searched once.
    if (!entry_plan.replacement.empty() &&
        std::ranges::find(seen, entry_plan.replacement) == seen.end()) {
      seen.push_back(entry_plan.replacement);
      plan.new_value += (plan.new_value.empty() ? "" : ":") + entry_plan.replacement;
    }
    plan.entries.push_back(std::move(entry_plan));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  for (const auto& soname : needed) {
    std::string package;
    const CudaLibrary* library = library_with_soname(generation, soname, package);
    if (library == nullptr || std::ranges::any_of(seen, [&](const std::string& entry) {
          return holds_file(location, entry, soname);
        }))
      continue;
    auto entry_plan = directory_for_needed(soname, package, *library, location, modules, locator);
    if (!entry_plan.replacement.empty()) {
      if (std::ranges::find(seen, entry_plan.replacement) != seen.end()) continue;
      seen.push_back(entry_plan.replacement);
      plan.new_value += (plan.new_value.empty() ? "" : ":") + entry_plan.replacement;
    }
    plan.entries.push_back(std::move(entry_plan));
  }
  return plan;
}

}  // namespace wheelmod::easybuild
