// The search order of ld.so(8), step by step as glibc 2.36 implements it
// (elf/dl-load.c _dl_map_object, open_path, fillin_rpath; elf/dl-deps.c
// _dl_map_object_deps for the breadth-first order; elf/dl-object.c for
// $ORIGIN). Function names below point at their glibc counterparts.
#include "loader_model.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace wheelmod::elf {

namespace {

namespace fs = std::filesystem;

constexpr std::uint16_t k_et_exec = 2;
constexpr std::uint16_t k_et_dyn = 3;

// One object in the namespace, as ld.so's struct link_map keeps it.
struct Map {
  std::string real_name;           // l_name: the path it was opened under
  std::vector<std::string> names;  // l_libname: names it answers to
  DynamicInfo info;
  std::optional<FileId> id;
  std::optional<std::size_t> loader;                   // l_loader: whose DT_NEEDED brought it
  std::optional<std::string> origin;                   // l_origin
  std::optional<std::size_t> listed;                   // index in the search list (l_reserved)
  std::optional<std::vector<std::string>> rpath_dirs;  // decomposed once (cache_rpath)
  std::optional<std::vector<std::string>> runpath_dirs;
};

enum class Outcome { not_found, found, failed };

// `path` lies in `root` or below it (both absolute and lexically normal).
bool is_under(const fs::path& path, const fs::path& root) {
  fs::path base = root;
  if (!base.has_filename() && base != base.root_path()) base = base.parent_path();
  auto at = path.begin();
  for (const auto& part : base) {
    if (at == path.end() || *at != part) return false;
    ++at;
  }
  return true;
}

// is_dst: the length of `$NAME` / `${NAME}` at `rest` (after the '$'),
// 0 when `rest` does not start with that token.
std::size_t token_length(std::string_view rest, std::string_view name) {
  const bool curly = !rest.empty() && rest.front() == '{';
  const auto body = curly ? rest.substr(1) : rest;
  if (!body.starts_with(name)) return 0;
  const auto after = body.substr(name.size());
  if (curly) return after.starts_with('}') ? name.size() + 2 : 0;
  const bool continues =
      !after.empty() &&
      (std::isalnum(static_cast<unsigned char>(after.front())) != 0 || after.front() == '_');
  return continues ? 0 : name.size();
}

class Resolver {
 public:
  Resolver(const LoaderEnvironment& environment, ObjectSource& source)
      : m_env(environment), m_source(source) {
    for (const auto& name : m_env.glibc_hwcaps) m_subdirs.push_back("glibc-hwcaps/" + name + "/");
    for (const auto& name : m_env.legacy_hwcap_subdirs) m_subdirs.push_back(name + "/");
    m_subdirs.emplace_back();
    for (auto dir : m_env.system_dirs) m_system_dirs.push_back(as_directory(std::move(dir)));
    m_cwd = m_env.working_directory.string();
    if (m_cwd.empty() || m_cwd.back() != '/') m_cwd += '/';
  }

  CheckResult run(const std::string& root_path, std::span<const std::string> loaded_before) {
    m_result.file = root_path;
    const Probe& root = m_source.probe(root_path);
    if (root.kind != ProbeKind::object) {
      m_result.error = root.kind == ProbeKind::missing ? "cannot open" : root.problem;
      return std::move(m_result);
    }
    m_class = root.info.elf_class;
    m_machine = root.info.machine;
    m_little_endian = root.info.little_endian;
    // A started program's $ORIGIN comes from /proc/self/exe, symlinks
    // resolved (_dl_get_origin); an object opened by path keeps the path.
    const bool executable = root.info.interpreter.has_value();
    add_map(root_path, root_path, root, std::nullopt, executable ? root.real_path : root_path);
    list(0);
    // _dl_init_paths: LD_LIBRARY_PATH's tokens are the main program's.
    m_library_path = decompose(m_env.ld_library_path, dst_values(0));
    add_interpreter(root.info.interpreter.value_or(m_env.interpreter), executable);
    add_loaded_before(loaded_before);

    // _dl_map_object_deps: breadth-first; each object's DT_NEEDED in order.
    for (std::size_t next = 0; next < m_search_list.size(); ++next) {
      const std::size_t map = m_search_list[next];
      const std::vector<std::string> needed = m_maps[map].info.needed;  // m_maps grows below
      for (const auto& name : needed) {
        auto found = map_object(map, name);
        m_result.objects[next].needed.push_back(std::move(found));
      }
    }
    return std::move(m_result);
  }

 private:
  // rtld.c: the interpreter is in the namespace before anything else,
  // under its PT_INTERP path and its SONAME; it joins the search list
  // where something first needs it.
  void add_interpreter(const std::string& interpreter, bool executable) {
    m_result.interpreter = interpreter;
    if (interpreter.empty()) return;
    const Probe& probe = m_source.probe(absolute(interpreter));
    if (probe.kind != ProbeKind::object || !same_abi(probe.info)) {
      m_result.interpreter_missing = executable;
      return;
    }
    const std::size_t map = add_map(interpreter, interpreter, probe, std::nullopt, interpreter);
    if (probe.info.soname && *probe.info.soname != interpreter)
      m_maps[map].names.push_back(*probe.info.soname);
  }

  // Objects already in the namespace (a Python extension's: what `import torch` loaded): a
  // request for a name they were loaded under or their SONAME is met by them before any search
  // (_dl_map_object's first loop), whatever the requester's scope. Listed only when requested.
  void add_loaded_before(std::span<const std::string> paths) {
    for (const auto& path : paths) {
      const Probe& probe = m_source.probe(absolute(path));
      if (probe.kind != ProbeKind::object || !same_abi(probe.info)) continue;
      if (std::any_of(m_maps.begin(), m_maps.end(),
                      [&](const Map& map) { return map.id == probe.id; }))
        continue;
      const std::size_t map = add_map(path, path, probe, std::nullopt, path);
      if (probe.info.soname) m_maps[map].names.push_back(*probe.info.soname);
    }
  }

  std::size_t add_map(const std::string& real_name, const std::string& name, const Probe& probe,
                      std::optional<std::size_t> loader, const std::string& origin_path) {
    Map map;
    map.real_name = real_name;
    map.names.push_back(name);
    map.info = probe.info;
    map.id = probe.id;
    map.loader = loader;
    map.origin = origin_of(origin_path);
    m_maps.push_back(std::move(map));
    return m_maps.size() - 1;
  }

  // Appends the map to the search list (and the result) unless it is there.
  std::size_t list(std::size_t map) {
    auto& entry = m_maps[map];
    if (entry.listed) return *entry.listed;
    LoadedObject object;
    object.path = entry.real_name;
    object.loaded_as = entry.names.front();
    if (entry.loader) object.loader = m_maps[*entry.loader].listed;
    object.placement = placement_of(entry.real_name);
    entry.listed = m_result.objects.size();
    m_result.objects.push_back(std::move(object));
    m_search_list.push_back(map);
    return *entry.listed;
  }

  NeededResult map_object(std::size_t loader, const std::string& raw_name) {
    NeededResult result;
    result.name = raw_name;
    const auto expanded = expand_dst(raw_name, dst_values(loader));
    if (!expanded || expanded->empty()) {
      result.problem = "a dynamic string token in the name has no value";
      return result;
    }
    const std::string& name = *expanded;
    if (const auto loaded = find_loaded(name)) {
      result.status = NeededStatus::found;
      result.found_by = FoundBy::already_loaded;
      result.path = m_maps[*loaded].real_name;
      result.object = list(*loaded);
      return result;
    }

    std::string hit;
    const Probe* probe = nullptr;
    Outcome outcome = Outcome::not_found;
    const auto step = [&](FoundBy by, const auto& search) {
      if (outcome != Outcome::not_found) return;
      outcome = search();
      result.found_by = by;
    };
    const auto try_dirs = [&](const std::vector<std::string>& dirs) {
      // open_path: each directory with its hwcap subdirectories first.
      for (const auto& dir : dirs)
        for (const auto& subdir : m_subdirs) {
          const Outcome tried = verify(dir + subdir + name, result, hit, probe);
          if (tried != Outcome::not_found) return tried;
        }
      return Outcome::not_found;
    };

    if (name.find('/') != std::string::npos) {
      result.path = name;  // said even when missing: the name is the path
      step(FoundBy::path, [&] { return verify(name, result, hit, probe); });
    } else {
      // An object with DT_RUNPATH has no DT_RPATH at all (get-dynamic-info.h),
      // and stops its loaders' DT_RPATH from applying to its requests.
      // glibc then tries the main program's DT_RPATH when the chain missed
      // it (dlopen); here every chain ends at the root, so it never does.
      if (!m_maps[loader].info.runpath)
        for (std::optional<std::size_t> at = loader; at; at = m_maps[*at].loader)
          step(FoundBy::rpath, [&] { return try_dirs(rpath_dirs(*at)); });
      step(FoundBy::ld_library_path, [&] { return try_dirs(m_library_path); });
      step(FoundBy::runpath, [&] { return try_dirs(runpath_dirs(loader)); });
      step(FoundBy::cache, [&] {
        if (!m_env.cache) return Outcome::not_found;
        const auto cached = m_env.cache->lookup(name, m_class, m_machine, m_env.glibc_hwcaps);
        return cached ? verify(*cached, result, hit, probe) : Outcome::not_found;
      });
      step(FoundBy::default_dirs, [&] { return try_dirs(m_system_dirs); });
    }

    if (outcome == Outcome::failed) {
      result.status = NeededStatus::invalid;
      return result;
    }
    if (outcome == Outcome::not_found) {
      const auto& drivers = m_env.driver_libraries;
      const bool driver = std::find(drivers.begin(), drivers.end(), raw_name) != drivers.end();
      result.status = driver ? NeededStatus::driver : NeededStatus::missing;
      return result;
    }
    result.status = NeededStatus::found;
    result.path = hit;
    // _dl_map_object_from_fd: the same file under another name is the
    // object already loaded; it now answers to this name too.
    for (std::size_t map = 0; map < m_maps.size(); ++map)
      if (m_maps[map].id == probe->id) {
        m_maps[map].names.push_back(name);
        result.object = list(map);
        return result;
      }
    result.object = list(add_map(hit, name, *probe, loader, hit));
    return result;
  }

  // _dl_map_object's first loop: a name it was loaded under, its path, or
  // its SONAME (which is then remembered as a name).
  std::optional<std::size_t> find_loaded(const std::string& name) {
    for (std::size_t map = 0; map < m_maps.size(); ++map) {
      auto& entry = m_maps[map];
      if (entry.real_name == name ||
          std::find(entry.names.begin(), entry.names.end(), name) != entry.names.end())
        return map;
      if (entry.info.soname == name) {
        entry.names.push_back(name);
        return map;
      }
    }
    return std::nullopt;
  }

  // open_verify: another ELF class or machine is passed over; anything
  // else that is not a loadable shared object ends the search with an error.
  Outcome verify(const std::string& path, NeededResult& result, std::string& hit,
                 const Probe*& probe) {
    const Probe& found = m_source.probe(absolute(path));
    if (found.kind == ProbeKind::missing) return Outcome::not_found;
    if (found.kind != ProbeKind::object) {
      result.problem = path + ": " + found.problem;
      return Outcome::failed;
    }
    const auto& info = found.info;
    if (info.elf_class != m_class) {
      result.skipped.push_back(path);
      return Outcome::not_found;
    }
    if (info.little_endian != m_little_endian) {
      result.problem = path + ": ELF file data encoding differs from the program's";
      return Outcome::failed;
    }
    if (info.machine != m_machine) {
      result.skipped.push_back(path);
      return Outcome::not_found;
    }
    if (info.type != k_et_dyn) {
      result.problem = path + (info.type == k_et_exec ? ": cannot dynamically load executable"
                                                      : ": only ET_DYN and ET_EXEC can be loaded");
      return Outcome::failed;
    }
    hit = path;
    probe = &found;
    return Outcome::found;
  }

  [[nodiscard]] bool same_abi(const DynamicInfo& info) const {
    return info.elf_class == m_class && info.machine == m_machine;
  }

  const std::vector<std::string>& rpath_dirs(std::size_t map) {
    auto& entry = m_maps[map];
    if (!entry.rpath_dirs) {
      entry.rpath_dirs.emplace();
      if (!entry.info.runpath && entry.info.rpath)
        *entry.rpath_dirs = decompose(split_search_path(*entry.info.rpath), dst_values(map));
    }
    return *entry.rpath_dirs;
  }

  const std::vector<std::string>& runpath_dirs(std::size_t map) {
    auto& entry = m_maps[map];
    if (!entry.runpath_dirs) {
      entry.runpath_dirs.emplace();
      if (entry.info.runpath)
        *entry.runpath_dirs = decompose(split_search_path(*entry.info.runpath), dst_values(map));
    }
    return *entry.runpath_dirs;
  }

  // fillin_rpath: an empty entry is the current directory (""); tokens
  // are expanded and an entry whose token has no value is dropped;
  // trailing slashes become one.
  static std::vector<std::string> decompose(const std::vector<std::string>& entries,
                                            const DstValues& values) {
    std::vector<std::string> dirs;
    for (const auto& entry : entries) {
      if (entry.empty()) {
        dirs.emplace_back();
        continue;
      }
      auto expanded = expand_dst(entry, values);
      if (!expanded || expanded->empty()) continue;
      dirs.push_back(as_directory(std::move(*expanded)));
    }
    return dirs;
  }

  static std::string as_directory(std::string dir) {
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    if (!dir.empty() && dir.back() != '/') dir += '/';
    return dir;
  }

  [[nodiscard]] DstValues dst_values(std::size_t map) const {
    return {m_maps[map].origin, m_env.lib, m_env.platform};
  }

  [[nodiscard]] std::string absolute(const std::string& path) const {
    return !path.empty() && path.front() == '/' ? path : m_cwd + path;
  }

  // _dl_new_object: the directory part of the absolute name, unnormalised.
  [[nodiscard]] std::string origin_of(const std::string& path) const {
    const std::string full = absolute(path);
    const auto slash = full.rfind('/');
    return slash == 0 ? "/" : full.substr(0, slash);
  }

  [[nodiscard]] Placement placement_of(const std::string& path) const {
    const fs::path lexical = fs::path(absolute(path)).lexically_normal();
    const std::string& real = m_source.probe(absolute(path)).real_path;
    const auto within = [&](const fs::path& root) {
      const fs::path base = fs::path(absolute(root.string())).lexically_normal();
      return is_under(lexical, base) || (!real.empty() && is_under(fs::path(real), base));
    };
    if (std::any_of(m_env.allowed_roots.begin(), m_env.allowed_roots.end(), within))
      return Placement::allowed;
    if (!m_result.interpreter.empty() &&
        lexical == fs::path(absolute(m_result.interpreter)).lexically_normal())
      return Placement::system;
    for (const auto& dir : m_env.system_dirs)
      if (within(dir)) return Placement::system;
    return Placement::outside;
  }

  const LoaderEnvironment& m_env;
  ObjectSource& m_source;
  std::vector<std::string> m_subdirs;  // hwcap subdirectories, then "" (the directory)
  std::vector<std::string> m_library_path;
  std::vector<std::string> m_system_dirs;
  std::string m_cwd;                       // with a trailing '/'
  std::vector<Map> m_maps;                 // namespace order
  std::vector<std::size_t> m_search_list;  // maps in CheckResult::objects order
  CheckResult m_result;
  ElfClass m_class = ElfClass::elf64;
  std::uint16_t m_machine = 0;
  bool m_little_endian = true;
};

}  // namespace

// elf/dl-load.c _dl_dst_substitute and is_dst.
std::optional<std::string> expand_dst(std::string_view text, const DstValues& values) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    if (text[at] != '$') {
      out += text[at++];
      continue;
    }
    const auto rest = text.substr(at + 1);
    std::size_t length = 0;
    const std::optional<std::string>* value = nullptr;
    const std::optional<std::string> lib = values.lib;
    if ((length = token_length(rest, "ORIGIN")) != 0) {
      value = &values.origin;
    } else if ((length = token_length(rest, "PLATFORM")) != 0) {
      value = &values.platform;
    } else if ((length = token_length(rest, "LIB")) != 0) {
      value = &lib;
    }
    if (value == nullptr) {
      out += '$';
      ++at;
      continue;
    }
    if (!*value) return std::nullopt;
    out += **value;
    at += 1 + length;
  }
  return out;
}

CheckResult resolve_dependencies(const std::string& root_path, const LoaderEnvironment& environment,
                                 ObjectSource& source, std::span<const std::string> loaded_before) {
  return Resolver(environment, source).run(root_path, loaded_before);
}

}  // namespace wheelmod::elf
