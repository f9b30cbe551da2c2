#include "easybuild/config.hpp"

#include <fcntl.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>

#include <sys/mman.h>
#include <sys/stat.h>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "core/timings.hpp"
#include "core/unique_fd.hpp"
#include "pep/name.hpp"
#include "pep/version.hpp"
#include "yaml/cursor.hpp"

#ifndef WHEELMOD_TABLES_GENERATOR  // tables_gen.cpp builds this file to write them
#include "shipped_tables.hpp"
#endif

namespace wheelmod::easybuild {

namespace {

namespace fs = std::filesystem;
using yaml::Cursor;
using yaml::Origin;

constexpr long k_schema = 1;
constexpr std::string_view k_toolchains_file = "toolchains.yaml";
constexpr std::string_view k_dependencies_file = "eb-dependencies.yaml";

// Both files are first merged into these partial tables (a field is unset
// until some file gives it); required fields are checked once all files are
// in, because a site may complete a shipped generation or package.
struct ToolchainEntry {
  Toolchain toolchain;
  Origin origin;
  std::size_t sequence = 0;  // read order, so a clash is reported at the later entry
};

struct PartialGeneration {
  Origin origin;  // where it first appeared, for "missing required field"
  std::optional<std::string> gcccore;
  std::optional<std::map<std::string, ToolchainEntry>> toolchains;
  std::optional<ModuleVersion> python;
  std::optional<ModuleVersion> cuda;
  std::vector<std::string> cuda_other;
  std::optional<ModuleVersion> rocm;
  std::map<std::string, Toolchain> rocm_toolchains;
};

struct PartialCudaLibrary {
  Origin origin;
  std::optional<std::string> wheel_libdir;
  std::vector<std::string> wheel_libdir_aliases;
  std::optional<std::vector<std::string>> libraries;
  std::optional<std::vector<LibraryProvider>> provided_by;
};

struct PartialRocmLibrary {
  Origin origin;
  std::optional<std::string> soname;
  std::vector<std::string> wheel_data;
  std::optional<std::vector<LibraryProvider>> provided_by;
};

struct PartialDependencies {
  Origin origin;
  std::map<std::string, std::vector<PythonProvider>> python;
  std::map<std::string, PartialCudaLibrary> cuda;
  std::map<std::string, PartialRocmLibrary> rocm;
  std::optional<CudaWheelBundle> cuda_wheel_bundle;  // replaced as a whole; null removes it
};

struct Tables {
  std::size_t toolchains_read = 0;
  std::map<std::string, PartialGeneration> generations;
  std::map<std::string, PartialDependencies> dependencies;
};

// --- values shared by both files -------------------------------------------

ModuleVersion read_module_version(const Cursor& map) {
  const auto fields = map.entries({"version", "module"});
  return {yaml::require(map, fields, "version").version(),
          yaml::require(map, fields, "module").module()};
}

std::string read_relative_dir(const Cursor& value) {
  std::string dir = value.text();
  if (dir.empty() || fs::path(dir).is_absolute()) {
    value.fail("expected a relative directory, got '" + dir + "'");
  }
  return dir;
}

// The key of a `toolchains` entry is the --toolchain value, `<name>-<version>`.
ToolchainEntry read_toolchain(const Cursor& entry) {
  const auto fields = entry.entries({"name", "version", "compiler", "mpi"});
  Toolchain toolchain{yaml::require(entry, fields, "name").text(),
                      yaml::require(entry, fields, "version").version(), "", ""};
  // HierarchicalMNS's facts (README "toolchains"): EasyBuildMNS names of the elements.
  if (const Cursor* compiler = yaml::find(fields, "compiler"))
    toolchain.compiler = compiler->module();
  if (const Cursor* mpi = yaml::find(fields, "mpi")) toolchain.mpi = mpi->module();
  if (!toolchain.mpi.empty() && toolchain.compiler.empty())
    yaml::fail(entry.key_origin(), "an mpi without a compiler",
               "name the toolchain's compiler too (compiler: 'GCC/13.3.0')");
  const std::string expected = toolchain.name + "-" + toolchain.version;
  if (entry.key() != expected) {
    yaml::fail(entry.key_origin(), "toolchain key must be <name>-<version>",
               "write '" + expected + "' as the key, or correct name and version");
  }
  return {std::move(toolchain), entry.key_origin(), 0};
}

// README "python": keys are PEP 503-normalised project names.
void check_project_key(const Cursor& entry) {
  if (!pep::is_valid_name(entry.key()) || pep::canonicalize_name(entry.key()) != entry.key()) {
    yaml::fail(entry.key_origin(), "'" + entry.key() + "' is not a normalised project name",
               "write '" + pep::canonicalize_name(entry.key()) +
                   "' (PEP 503: lower case, runs of '-', '_', '.' become one '-')");
  }
}

std::vector<Cursor> read_header(const Cursor& root) {
  const auto fields = root.entries({"schema", "generations"});
  const Cursor& schema = yaml::require(root, fields, "schema");
  if (const long found = schema.integer(); found != k_schema) {
    schema.fail("version " + std::to_string(found) + " is not supported",
                "this wheelmod reads schema " + std::to_string(k_schema) +
                    "; see config/README.md for the format");
  }
  const Cursor& generations = yaml::require(root, fields, "generations");
  auto entries = generations.entries();
  for (const auto& generation : entries) generation.require_string_key();
  return entries;
}

// --- toolchains.yaml ---------------------------------------------------------

ModuleVersion read_rocm(const Cursor& map, std::map<std::string, Toolchain>& toolchains) {
  const auto fields = map.entries({"version", "module", "toolchains", "modules"});
  // `modules` is informational (README): checked, not kept. `toolchains` are no --toolchain
  // values; kept for naming the ROCm modules built with them (module_naming.hpp).
  toolchains.clear();
  if (const Cursor* listed = yaml::find(fields, "toolchains")) {
    for (const auto& entry : listed->entries())
      toolchains.insert_or_assign(entry.key(), read_toolchain(entry).toolchain);
  }
  if (const Cursor* modules = yaml::find(fields, "modules")) {
    for (const auto& module : modules->items()) module.module();
  }
  return {yaml::require(map, fields, "version").version(),
          yaml::require(map, fields, "module").module()};
}

void apply_toolchains(const Cursor& root, Tables& tables) {
  for (const auto& entry : read_header(root)) {
    if (entry.is_null()) {  // the site does not support this generation
      tables.generations.erase(entry.key());
      tables.dependencies.erase(entry.key());
      continue;
    }
    auto [it, added] = tables.generations.try_emplace(entry.key());
    PartialGeneration& generation = it->second;
    if (added) generation.origin = entry.key_origin();
    const auto fields =
        entry.entries({"gcccore", "toolchains", "python", "cuda", "cuda_other", "rocm"});
    for (const auto& field : fields) {
      const std::string& key = field.key();
      if (key == "gcccore") {
        generation.gcccore = field.version();
      } else if (key == "toolchains") {  // merged per key; null removes one
        auto& toolchains =
            generation.toolchains ? *generation.toolchains : generation.toolchains.emplace();
        for (const auto& toolchain : field.entries()) {
          if (toolchain.is_null()) {
            toolchains.erase(toolchain.key());
          } else {
            ToolchainEntry read = read_toolchain(toolchain);
            read.sequence = ++tables.toolchains_read;
            toolchains.insert_or_assign(toolchain.key(), std::move(read));
          }
        }
      } else if (key == "python") {
        generation.python = read_module_version(field);
      } else if (key == "cuda") {
        generation.cuda =
            field.is_null() ? std::nullopt : std::optional(read_module_version(field));
      } else if (key == "cuda_other") {
        generation.cuda_other = field.versions();
      } else {
        generation.rocm_toolchains.clear();
        generation.rocm = field.is_null()
                              ? std::nullopt
                              : std::optional(read_rocm(field, generation.rocm_toolchains));
      }
    }
  }
}

// --- eb-dependencies.yaml ----------------------------------------------------

std::vector<PythonProvider> read_python_providers(const Cursor& list) {
  std::vector<PythonProvider> providers;
  for (const auto& item : list.items()) {
    const auto fields = item.entries({"module", "package_version", "cuda"});
    const Cursor* cuda = yaml::find(fields, "cuda");
    providers.push_back({yaml::require(item, fields, "module").module(),
                         yaml::require(item, fields, "package_version").version(),
                         cuda ? std::optional(cuda->version()) : std::nullopt});
  }
  return providers;
}

std::vector<LibraryProvider> read_library_providers(const Cursor& list) {
  std::vector<LibraryProvider> providers;
  for (const auto& item : list.items()) {
    const auto fields = item.entries({"module", "name", "version", "libdir", "cuda"});
    const Cursor* cuda = yaml::find(fields, "cuda");
    providers.push_back({yaml::require(item, fields, "module").module(),
                         yaml::require(item, fields, "name").text(),
                         yaml::require(item, fields, "version").version(),
                         read_relative_dir(yaml::require(item, fields, "libdir")),
                         cuda ? std::optional(cuda->version()) : std::nullopt});
  }
  return providers;
}

std::vector<LibraryProvider> read_rocm_providers(const Cursor& list) {
  std::vector<LibraryProvider> providers;
  for (const auto& item : list.items()) {
    const auto fields = item.entries({"module", "name", "version", "libdir", "rocm", "data"});
    LibraryProvider provider{.module = yaml::require(item, fields, "module").module(),
                             .name = yaml::require(item, fields, "name").text(),
                             .version = yaml::require(item, fields, "version").version(),
                             .libdir = read_relative_dir(yaml::require(item, fields, "libdir")),
                             .cuda = std::nullopt,
                             .installed_here = false};
    if (const Cursor* rocm = yaml::find(fields, "rocm")) provider.rocm = rocm->version();
    if (const Cursor* data = yaml::find(fields, "data"))
      for (const auto& dir : data->items()) provider.data.push_back(read_relative_dir(dir));
    providers.push_back(std::move(provider));
  }
  return providers;
}

// README "rocm": the key is the file name torch/lib carries, a plain library name.
void check_rocm_key(const Cursor& entry) {
  const std::string& key = entry.key();
  const bool plain = key.starts_with("lib") && key.find(".so") != std::string::npos &&
                     std::ranges::all_of(key, [](char c) {
                       return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ||
                              c == '-' || c == '+';
                     });
  if (!plain)
    yaml::fail(entry.key_origin(), "'" + key + "' is not a library file name",
               "write the name of the file in torch/lib, as libamdhip64.so");
}

void merge_rocm_library(const Cursor& entry, PartialRocmLibrary& library) {
  for (const auto& field : entry.entries({"soname", "wheel_data", "provided_by"})) {
    const std::string& key = field.key();
    if (key == "soname") {
      library.soname = field.text();
    } else if (key == "wheel_data") {
      library.wheel_data.clear();
      for (const auto& dir : field.items()) library.wheel_data.push_back(read_relative_dir(dir));
    } else {
      library.provided_by = read_rocm_providers(field);
    }
  }
}

// `not_compatible` is for messages only (README); checked, not kept.
void check_not_compatible(const Cursor& list) {
  for (const auto& item : list.items()) {
    const auto fields = item.entries({"module", "name", "version", "cuda", "reason"});
    yaml::require(item, fields, "module").module();
    yaml::require(item, fields, "name").text();
    yaml::require(item, fields, "version").version();
    yaml::require(item, fields, "reason").text();
    if (const Cursor* cuda = yaml::find(fields, "cuda")) cuda->version();
  }
}

// `cuda_wheel_bundle` is replaced as a whole (README).
CudaWheelBundle read_wheel_bundle(const Cursor& map) {
  const auto fields = map.entries({"module", "cuda", "packages"});
  CudaWheelBundle bundle{yaml::require(map, fields, "module").module(),
                         yaml::require(map, fields, "cuda").version(),
                         {}};
  for (const auto& package : yaml::require(map, fields, "packages").entries()) {
    check_project_key(package);
    bundle.packages.insert_or_assign(package.key(), package.version());
  }
  return bundle;
}

void merge_cuda_library(const Cursor& entry, PartialCudaLibrary& library) {
  const auto fields = entry.entries(
      {"wheel_libdir", "wheel_libdir_aliases", "libraries", "provided_by", "not_compatible"});
  for (const auto& field : fields) {  // each given field replaces the shipped one
    const std::string& key = field.key();
    if (key == "wheel_libdir") {
      library.wheel_libdir = read_relative_dir(field);
    } else if (key == "wheel_libdir_aliases") {
      library.wheel_libdir_aliases.clear();
      for (const auto& alias : field.items()) {
        library.wheel_libdir_aliases.push_back(read_relative_dir(alias));
      }
    } else if (key == "libraries") {
      library.libraries = field.texts();
    } else if (key == "provided_by") {
      library.provided_by = read_library_providers(field);
    } else {
      check_not_compatible(field);
    }
  }
}

void apply_dependencies(const Cursor& root, Tables& tables) {
  for (const auto& entry : read_header(root)) {
    if (entry.is_null()) {
      tables.generations.erase(entry.key());
      tables.dependencies.erase(entry.key());
      continue;
    }
    auto [it, added] = tables.dependencies.try_emplace(entry.key());
    PartialDependencies& dependencies = it->second;
    if (added) dependencies.origin = entry.key_origin();
    for (const auto& field : entry.entries({"python", "cuda", "rocm", "cuda_wheel_bundle"})) {
      if (field.key() == "python") {  // per package: a list replaces, null removes
        for (const auto& package : field.entries()) {
          check_project_key(package);
          if (package.is_null()) {
            dependencies.python.erase(package.key());
          } else {
            dependencies.python.insert_or_assign(package.key(), read_python_providers(package));
          }
        }
      } else if (field.key() == "cuda") {  // per package, then per field
        for (const auto& package : field.entries()) {
          check_project_key(package);
          if (package.is_null()) {
            dependencies.cuda.erase(package.key());
            continue;
          }
          auto [library, new_library] = dependencies.cuda.try_emplace(package.key());
          if (new_library) library->second.origin = package.key_origin();
          merge_cuda_library(package, library->second);
        }
      } else if (field.key() == "rocm") {  // per library, then per field; null removes
        if (field.is_null()) {
          dependencies.rocm.clear();
          continue;
        }
        for (const auto& file : field.entries()) {
          check_rocm_key(file);
          if (file.is_null()) {
            dependencies.rocm.erase(file.key());
            continue;
          }
          auto [library, new_library] = dependencies.rocm.try_emplace(file.key());
          if (new_library) library->second.origin = file.key_origin();
          merge_rocm_library(file, library->second);
        }
      } else if (field.is_null()) {
        dependencies.cuda_wheel_bundle.reset();
      } else {
        dependencies.cuda_wheel_bundle = read_wheel_bundle(field);
      }
    }
  }
}

void apply_file(const fs::path& path, Tables& tables, const std::string* text = nullptr) {
  const Cursor root = text ? Cursor::load_text(*text, path) : Cursor::load_file(path);
  if (path.filename() == k_toolchains_file) {
    apply_toolchains(root, tables);
  } else {
    apply_dependencies(root, tables);
  }
}

#ifndef WHEELMOD_TABLES_GENERATOR
// Whether `file` holds exactly `bytes`; false for anything unreadable. Mapped, not read: the
// comparison then costs no copy into fresh heap pages (about a tenth of a millisecond less).
bool holds_exactly(const fs::path& file, std::string_view bytes) {
  const UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat status {};
  if (!fd || ::fstat(fd.get(), &status) != 0 || !S_ISREG(status.st_mode) ||
      static_cast<std::uint64_t>(status.st_size) != bytes.size())
    return false;
  if (bytes.empty()) return true;
  void* mapped = ::mmap(nullptr, bytes.size(), PROT_READ, MAP_PRIVATE, fd.get(), 0);
  if (mapped == MAP_FAILED) return false;
  const bool same = std::memcmp(mapped, bytes.data(), bytes.size()) == 0;
  ::munmap(mapped, bytes.size());
  return same;
}
#endif

// The shipped eb-dependencies.yaml with every generation's block but `keep`'s blanked (lines
// emptied, so marks keep their line numbers). The file's layout is the project's own: a
// top-level `generations:` whose keys sit at two spaces; anything else is kept as it is.
std::string only_generation(const std::string& text, const std::string& keep) {
  std::string out;
  out.reserve(text.size());
  bool in_generations = false;
  bool keeping = true;
  for (std::size_t start = 0; start < text.size();) {
    auto end = text.find('\n', start);
    end = end == std::string::npos ? text.size() : end + 1;
    const std::string_view line(text.data() + start, end - start);
    const bool top_level = !line.empty() && line[0] != ' ' && line[0] != '#' && line[0] != '\n';
    if (top_level) {
      in_generations = line.starts_with("generations:");
      keeping = true;
    } else if (in_generations && line.size() > 2 && line.starts_with("  ") && line[2] != ' ' &&
               line[2] != '#') {
      auto key = line.substr(2, line.find(':') - 2);
      if (key.size() >= 2 && (key.front() == '"' || key.front() == '\''))
        key = key.substr(1, key.size() - 2);
      keeping = key == keep;
    }
    if (keeping || top_level)
      out.append(line);
    else
      out.push_back('\n');
    start = end;
  }
  return out;
}

// --- all files in --------------------------------------------------------------

template <typename T>
const T& required(const std::optional<T>& value, const Origin& origin, std::string_view field) {
  if (!value) {
    yaml::fail(origin, "missing required field '" + std::string(field) + "'",
               "an entry that the site file adds must be complete (config/README.md)");
  }
  return *value;
}

std::map<std::string, Generation> finish(Tables& tables) {
  for (const auto& [name, dependencies] : tables.dependencies) {
    if (!tables.generations.contains(name)) {
      std::string known;
      for (const auto& [other, generation] : tables.generations) {
        known += (known.empty() ? "" : ", ") + other;
      }
      yaml::fail(dependencies.origin,
                 "generation '" + name + "' is not in " + std::string(k_toolchains_file),
                 "add it to toolchains.yaml next to this file, or correct the name (known: " +
                     known + ")");
    }
  }
  // find_generation must be unambiguous: one generation per --toolchain value.
  std::map<std::string, std::pair<std::string, const ToolchainEntry*>> owner;
  for (const auto& [name, partial] : tables.generations) {
    if (!partial.toolchains) continue;
    for (const auto& [key, entry] : *partial.toolchains) {
      const auto [it, added] = owner.try_emplace(key, name, &entry);
      if (added) continue;
      const bool later = entry.sequence > it->second.second->sequence;
      yaml::fail(later ? entry.origin : it->second.second->origin,
                 "toolchain '" + key + "' is also in generation '" +
                     (later ? it->second.first : name) + "'",
                 "a --toolchain value selects one generation; remove one of them");
    }
  }
  std::map<std::string, Generation> out;
  for (auto& [name, partial] : tables.generations) {
    Generation generation{.name = name,
                          .gcccore = required(partial.gcccore, partial.origin, "gcccore"),
                          .toolchains = {},
                          .python = required(partial.python, partial.origin, "python"),
                          .cuda = partial.cuda,
                          .cuda_other = partial.cuda_other,
                          .rocm = partial.rocm,
                          .rocm_toolchains = partial.rocm_toolchains,
                          .python_packages = {},
                          .cuda_libraries = {},
                          .rocm_libraries = {},
                          .cuda_wheel_bundle = std::nullopt};
    for (const auto& [key, entry] : required(partial.toolchains, partial.origin, "toolchains")) {
      generation.toolchains.emplace(key, entry.toolchain);
    }
    if (auto found = tables.dependencies.find(name); found != tables.dependencies.end()) {
      generation.python_packages = std::move(found->second.python);
      generation.cuda_wheel_bundle = std::move(found->second.cuda_wheel_bundle);
      for (auto& [package, library] : found->second.cuda) {
        generation.cuda_libraries.emplace(
            package, CudaLibrary{required(library.wheel_libdir, library.origin, "wheel_libdir"),
                                 std::move(library.wheel_libdir_aliases),
                                 required(library.libraries, library.origin, "libraries"),
                                 required(library.provided_by, library.origin, "provided_by")});
      }
      for (auto& [file, library] : found->second.rocm) {
        generation.rocm_libraries.emplace(
            file, RocmLibrary{required(library.soname, library.origin, "soname"),
                              std::move(library.wheel_data),
                              required(library.provided_by, library.origin, "provided_by")});
      }
    }
    out.emplace(name, std::move(generation));
  }
  return out;
}

}  // namespace

SiteConfig SiteConfig::load(const fs::path& shipped_dir, const std::optional<fs::path>& site_dir) {
  return load_for_toolchain(shipped_dir, site_dir, "");
}

SiteConfig SiteConfig::load_for_toolchain(const fs::path& shipped_dir,
                                          const std::optional<fs::path>& site_dir,
                                          const std::string& toolchain) {
  const timings::Scope phase("tables");
#ifndef WHEELMOD_TABLES_GENERATOR
  // Anything but the very bytes of the build (a missing or unreadable file, an edit) goes the
  // YAML way, with its messages.
  if (!site_dir &&
      holds_exactly(shipped_dir / k_toolchains_file, detail::k_shipped_toolchains_yaml) &&
      holds_exactly(shipped_dir / k_dependencies_file, detail::k_shipped_dependencies_yaml)) {
    SiteConfig config;
    config.m_generations = detail::shipped_generations(toolchain);
    return config;
  }
#endif
  return load_from_yaml(shipped_dir, site_dir, toolchain);
}

SiteConfig SiteConfig::load_from_yaml(const fs::path& shipped_dir,
                                      const std::optional<fs::path>& site_dir,
                                      const std::string& toolchain) {
  Tables tables;
  for (const auto file : {k_toolchains_file, k_dependencies_file}) {
    const fs::path path = shipped_dir / file;
    if (!fs::is_regular_file(path)) {
      throw UsageError(path.string(), "the shipped configuration file is missing",
                       "reinstall wheelmod, or set WHEELMOD_DATA_DIR to the directory that "
                       "holds config/");
    }
    // A site's toolchains.yaml may add the toolchain: then everything is read.
    std::optional<std::string> generation;
    if (file == k_dependencies_file && !toolchain.empty() &&
        (!site_dir || !fs::exists(*site_dir / k_toolchains_file)))
      for (const auto& [name, partial] : tables.generations)
        if (partial.toolchains && partial.toolchains->contains(toolchain)) generation = name;
    if (generation) {
      const auto text = only_generation(read_file(path), *generation);
      apply_file(path, tables, &text);
    } else {
      apply_file(path, tables);
    }
  }
  if (site_dir) {
    if (!fs::is_directory(*site_dir)) {
      throw UsageError(site_dir->string(), "the site configuration directory does not exist",
                       "give --config a directory holding toolchains.yaml and/or "
                       "eb-dependencies.yaml");
    }
    // A file the site does not have leaves the shipped one unchanged (README).
    for (const auto file : {k_toolchains_file, k_dependencies_file}) {
      const fs::path path = *site_dir / file;
      if (!fs::exists(path)) continue;
      apply_file(path, tables);
    }
  }
  SiteConfig config;
  config.m_generations = finish(tables);
  return config;
}

void SiteConfig::add_library_provider(std::string_view toolchain, const std::string& package,
                                      LibraryProvider provider) {
  for (auto& [name, generation] : m_generations) {
    if (!generation.toolchains.contains(std::string(toolchain))) continue;
    const auto library = generation.cuda_libraries.find(package);
    if (library != generation.cuda_libraries.end())
      library->second.provided_by.push_back(std::move(provider));
    return;
  }
}

const Generation* SiteConfig::find_generation(std::string_view toolchain) const {
  for (const auto& [name, generation] : m_generations) {
    if (generation.toolchains.contains(std::string(toolchain))) return &generation;
  }
  return nullptr;
}

std::vector<std::string> SiteConfig::toolchain_names() const {
  std::vector<std::string> names;
  for (const auto& [name, generation] : m_generations) {
    for (const auto& [toolchain, value] : generation.toolchains) names.push_back(toolchain);
  }
  std::ranges::sort(names);
  return names;
}

std::vector<std::string> cuda_versions(const Generation& generation) {
  std::vector<std::string> out;
  if (generation.cuda) out.push_back(generation.cuda->version);
  out.insert(out.end(), generation.cuda_other.begin(), generation.cuda_other.end());
  return out;
}

std::optional<std::string> cuda_module_version(const Generation& generation,
                                               std::string_view wanted) {
  const auto want = pep::Version::parse(wanted);
  if (!want || want->release().size() < 2) return std::nullopt;
  const auto& w = want->release();
  for (const auto& version : cuda_versions(generation)) {
    const auto have = pep::Version::parse(version);
    if (!have || have->release().size() < 2) continue;
    const auto& h = have->release();
    if (h[0] == w[0] && h[1] == w[1] && (w.size() < 3 || h == w)) return version;
  }
  return std::nullopt;
}

std::optional<std::string> cuda_module_serving(const Generation& generation,
                                               std::string_view wanted) {
  const auto want = pep::Version::parse(wanted);
  if (!want || want->release().empty()) return std::nullopt;
  for (const auto& version : cuda_versions(generation)) {
    const auto have = pep::Version::parse(version);
    if (have && have->release().front() == want->release().front() && *have >= *want)
      return version;
  }
  return std::nullopt;
}

fs::path SiteConfig::default_dir() { return shipped_data_dir("config"); }

}  // namespace wheelmod::easybuild
