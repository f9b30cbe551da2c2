#include "easybuild/library_map.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <mutex>
#include <system_error>

#include "core/strings.hpp"
#include "easybuild/rocm_libraries.hpp"

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

// Every package the table puts in `wheel_dir` (CUDA 13's toolkit wheels share nvidia/cu13/lib),
// in the table's order.
std::vector<std::pair<std::string, const CudaLibrary*>> libraries_in(const Generation& generation,
                                                                     const std::string& wheel_dir) {
  std::vector<std::pair<std::string, const CudaLibrary*>> found;
  for (const auto& [name, library] : generation.cuda_libraries) {
    if (library.wheel_libdir == wheel_dir ||
        std::ranges::find(library.wheel_libdir_aliases, wheel_dir) !=
            library.wheel_libdir_aliases.end())
      found.emplace_back(name, &library);
  }
  return found;
}

// Where one package's libraries are, in the first of its modules the site has.
struct Placement {
  const LibraryProvider* provider = nullptr;
  std::vector<std::string> directories;
};

std::optional<Placement> place(const CudaLibrary& library, const std::vector<std::string>& sonames,
                               const std::vector<std::string>& modules,
                               const ModuleLocator& locator) {
  // The modules the resolution chose first; then any provider the site has.
  std::vector<const LibraryProvider*> order;
  for (const auto& provider : library.provided_by)
    if (std::ranges::find(modules, provider.module) != modules.end()) order.push_back(&provider);
  for (const auto& provider : library.provided_by)
    if (std::ranges::find(order, &provider) == order.end()) order.push_back(&provider);
  for (const auto* provider : order) {
    const auto root = locator.root_of(provider->module);
    if (!root) continue;
    Placement placement{.provider = provider, .directories = {}};
    for (const auto& soname : sonames) {
      const auto directory = locator.directory_with(*root, provider->libdir, soname);
      if (!directory) continue;
      const auto text = directory->lexically_normal().string();
      if (std::ranges::find(placement.directories, text) == placement.directories.end())
        placement.directories.push_back(text);
    }
    // A module holding none of them: its table directory, as before; check then says what is
    // missing where.
    if (placement.directories.empty())
      placement.directories.push_back((*root / provider->libdir).lexically_normal().string());
    return placement;
  }
  return std::nullopt;
}

std::string unplaced_note(const std::string& package, const CudaLibrary& library) {
  std::string wanted;
  for (const auto& provider : library.provided_by)
    wanted += (wanted.empty() ? "" : ", ") + provider.module;
  return wanted.empty() ? package + ": no module of this generation provides it"
                        : package + ": none of its modules is installed (" + wanted + ")";
}

// The entry of a wheel directory, mapped to the module directories holding the libraries of
// every package in it.
EntryPlan map_wheel_dir(const std::string& entry,
                        const std::vector<std::pair<std::string, const CudaLibrary*>>& packages,
                        const std::vector<std::string>& modules, const ModuleLocator& locator) {
  EntryPlan plan{.entry = entry,
                 .action = EntryAction::mapped,
                 .replacements = {},
                 .provider = {},
                 .note = {}};
  std::vector<std::string> providers;
  std::vector<std::string> unplaced;
  for (const auto& [package, library] : packages) {
    const auto placement = place(*library, library->libraries, modules, locator);
    if (!placement) {
      unplaced.push_back(unplaced_note(package, *library));
      continue;
    }
    for (const auto& directory : placement->directories)
      if (std::ranges::find(plan.replacements, directory) == plan.replacements.end())
        plan.replacements.push_back(directory);
    if (std::ranges::find(providers, placement->provider->module) == providers.end())
      providers.push_back(placement->provider->module);
  }
  if (plan.replacements.empty()) {
    plan.action = EntryAction::unmapped;
    plan.provider = packages.front().first;
    plan.note = unplaced.front();
    return plan;
  }
  plan.provider = join(providers, ", ");
  plan.note = (packages.size() == 1 ? packages.front().first + " is"
                                    : "the " + std::to_string(packages.size()) + " packages of " +
                                          "this directory are") +
              " provided by " + plan.provider;
  if (!unplaced.empty()) plan.note += "; " + join(unplaced, "; ");
  return plan;
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
                     .replacements = {entry},
                     .provider = {},
                     .note = std::move(note)};
  };
  const auto dropped = [&](std::string note) {
    return EntryPlan{.entry = entry,
                     .action = EntryAction::dropped,
                     .replacements = {},
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
  if (is_within(target, location.site_packages)) {
    if (const auto packages = libraries_in(generation, wheel_dir); !packages.empty()) {
      const auto& [package, library] = packages.front();
      if (directory_exists(target)) return kept(package + " is installed in the prefix");
      // A bundled wheel fills one of its directories; the others it might
      // have had (torch also names `cusparselt/lib`) are then no module's.
      for (const auto& other : all_wheel_dirs(*library))
        if (directory_exists(location.site_packages / other))
          return dropped(package + " is installed in the prefix at " + other);
      return map_wheel_dir(entry, packages, modules, locator);
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
                     .replacements = {relative == "." ? "$ORIGIN" : "$ORIGIN/" + relative},
                     .provider = {},
                     .note = soname + " is needed; " + package + " is installed in the prefix"};
  }
  if (const auto placement = place(library, {soname}, modules, locator)) {
    return EntryPlan{.entry = {},
                     .action = EntryAction::added,
                     .replacements = placement->directories,
                     .provider = placement->provider->module,
                     .note = soname + " is needed and no entry reached it; " + package +
                             " is provided by " + placement->provider->module};
  }
  return EntryPlan{.entry = {},
                   .action = EntryAction::unmapped,
                   .replacements = {},
                   .provider = package,
                   .note = soname + " is needed; " + unplaced_note(package, library)};
}

// Appends each of `directories` not yet in `seen` to `seen` and to the path `value`; whether any
// was new. Several nvidia-* directories map to one module directory (cuBLAS, cuFFT, ... are all
// CUDA/lib64): it is searched once.
bool append_once(const std::vector<std::string>& directories, std::vector<std::string>& seen,
                 std::string& value) {
  bool added = false;
  for (const auto& directory : directories) {
    if (std::ranges::find(seen, directory) != seen.end()) continue;
    seen.push_back(directory);
    value += (value.empty() ? "" : ":") + directory;
    added = true;
  }
  return added;
}

// The libraries of a module's tree: each file name that looks like a shared library, with the
// shallowest directory holding it (a regular file, or a link to one: the sample's modules link
// to NVIDIA's files). Directory links are not followed, so a tree that links to itself ends.
std::map<std::string, fs::path> list_libraries(const fs::path& root) {
  // CUDA's deepest library directory is targets/x86_64-linux/lib/stubs (4 below the root).
  constexpr int k_depth = 5;
  std::map<std::string, std::pair<int, fs::path>> found;
  std::error_code error;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, error);
  for (; !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (it.depth() + 1 >= k_depth) it.disable_recursion_pending();
    const auto name = it->path().filename().string();
    std::error_code type_error;
    if (name.find(".so") == std::string::npos || !it->is_regular_file(type_error)) continue;
    auto& slot = found[name];
    if (slot.second.empty() || it.depth() < slot.first)
      slot = {it.depth(), it->path().parent_path()};
  }
  std::map<std::string, fs::path> libraries;
  for (auto& [name, slot] : found) libraries.emplace(name, std::move(slot.second));
  return libraries;
}

}  // namespace

struct ModuleTreeIndex {
  std::mutex mutex;
  std::map<fs::path, std::map<std::string, fs::path>> libraries;  // root -> name -> directory
};

std::optional<fs::path> ModuleLocator::directory_with(const fs::path& root, std::string_view libdir,
                                                      std::string_view soname) const {
  const auto table_directory = (root / libdir).lexically_normal();
  std::error_code error;
  if (fs::exists(table_directory / soname, error)) return table_directory;
  const auto look_up =
      [&](const std::map<std::string, fs::path>& libraries) -> std::optional<fs::path> {
    const auto it = libraries.find(std::string(soname));
    if (it == libraries.end()) return std::nullopt;
    return it->second;
  };
  if (!tree_index) return look_up(list_libraries(root));
  const std::lock_guard lock(tree_index->mutex);
  auto [it, listed] = tree_index->libraries.try_emplace(root);
  if (listed) it->second = list_libraries(root);
  return look_up(it->second);
}

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

namespace {

// Whether `version` (3.4.5-gompi-2026.1-CUDA-13.3.0) is built for CUDA `cuda` (13.3.0).
bool built_for(std::string_view version, std::string_view cuda) {
  const std::string suffix = "-CUDA-" + std::string(cuda);
  const auto at = version.find(suffix);
  return at != std::string_view::npos &&
         (at + suffix.size() == version.size() || version[at + suffix.size()] == '-');
}

// The modules under `software_root` built for one of `cudas`, as Name/version, newest first
// within each name.
std::vector<std::string> cuda_modules_under(const fs::path& software_root,
                                            const std::vector<std::string>& cudas) {
  std::vector<std::string> modules;
  std::error_code error;
  for (const auto& name : fs::directory_iterator(software_root, error)) {
    std::error_code inner;
    if (!name.is_directory(inner)) continue;
    std::vector<std::string> versions;
    for (const auto& version : fs::directory_iterator(name.path(), inner)) {
      const auto text = version.path().filename().string();
      if (std::ranges::any_of(cudas, [&](const auto& cuda) { return built_for(text, cuda); }))
        versions.push_back(text);
    }
    std::ranges::sort(versions, std::greater<>());
    for (const auto& version : versions)
      modules.push_back(name.path().filename().string() + "/" + version);
  }
  return modules;
}

}  // namespace

std::vector<FoundProvider> installed_providers(const Generation& generation,
                                               const ModuleLocator& locator,
                                               const std::vector<std::string>& preferred) {
  const auto cudas = cuda_versions(generation);
  std::vector<std::string> candidates = preferred;
  if (locator.software_root)
    for (auto& module : cuda_modules_under(*locator.software_root, cudas))
      if (std::ranges::find(candidates, module) == candidates.end())
        candidates.push_back(std::move(module));
  std::vector<FoundProvider> found;
  for (const auto& [package, library] : generation.cuda_libraries) {
    if (std::ranges::any_of(library.provided_by, [&](const auto& provider) {
          return locator.root_of(provider.module).has_value();
        }))
      continue;
    for (const auto& module : candidates) {
      const auto root = locator.root_of(module);
      if (!root) continue;
      const auto slash = module.find('/');
      const std::string version = module.substr(slash + 1);
      std::optional<std::string> cuda;
      for (const auto& candidate : cudas)
        if (built_for(version, candidate)) cuda = candidate;
      std::optional<FoundProvider> hit;
      for (const auto& soname : library.libraries) {
        for (const char* libdir : {"lib", "lib64"}) {
          std::error_code error;
          if (!fs::exists(*root / libdir / soname, error)) continue;
          hit = FoundProvider{
              .package = package,
              .provider = LibraryProvider{.module = module,
                                          .name = module.substr(0, slash),
                                          .version = version.substr(0, version.find('-')),
                                          .libdir = libdir,
                                          .cuda = cuda,
                                          .installed_here = true},
              .soname = soname};
          break;
        }
        if (hit) break;
      }
      if (hit) {
        found.push_back(std::move(*hit));
        break;
      }
    }
  }
  return found;
}

ModuleLocator environment_locator(std::optional<fs::path> software_root, Getenv getenv) {
  return ModuleLocator{.software_root = std::move(software_root),
                       .getenv = std::move(getenv),
                       .tree_index = std::make_shared<ModuleTreeIndex>()};
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
                                const std::vector<std::string>& needed,
                                const std::map<std::string, RocmLink>* rocm_links) {
  SearchPathPlan plan;
  std::vector<std::string> seen;
  std::size_t start = 0;
  for (; old_value;) {
    const auto colon = old_value->find(':', start);
    const std::string entry(old_value->substr(start, colon - start));
    auto entry_plan = plan_entry(entry, location, generation, modules, locator);
    append_once(entry_plan.replacements, seen, plan.new_value);
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
    if (!entry_plan.replacements.empty() &&
        !append_once(entry_plan.replacements, seen, plan.new_value))
      continue;
    plan.entries.push_back(std::move(entry_plan));
  }
  if (rocm_links != nullptr)
    for (const auto& name : needed) {
      const auto link = rocm_links->find(name);
      if (link == rocm_links->end() || !append_once({link->second.directory}, seen, plan.new_value))
        continue;
      plan.entries.push_back(EntryPlan{
          .entry = {},
          .action = EntryAction::added,
          .replacements = {link->second.directory},
          .provider = link->second.module,
          .note = name + " is needed; the ROCm module " + link->second.module + " provides it"});
    }
  return plan;
}

}  // namespace wheelmod::easybuild
