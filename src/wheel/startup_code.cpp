#include "wheel/startup_code.hpp"

#include <algorithm>
#include <charconv>
#include <optional>

#include "stdlib_module_names.hpp"

namespace wheelmod::wheel {

namespace {

// The minor version of "3.13", "3.13t", "3.13.1"; nullopt for anything else.
std::optional<int> minor_of(std::string_view version) {
  if (!version.starts_with("3.")) return std::nullopt;
  version.remove_prefix(2);
  int minor = 0;
  const auto [end, error] = std::from_chars(version.data(), version.data() + version.size(), minor);
  if (error != std::errc{} || end == version.data()) return std::nullopt;
  const std::string_view rest(end, static_cast<std::size_t>(version.data() + version.size() - end));
  if (!rest.empty() && rest != "t" && !rest.starts_with('.')) return std::nullopt;
  return minor;
}

// The `.data` directory of the wheel (PEP 427: `{distribution}-{version}.data`, beside the
// `.dist-info` of the same stem); without a dist-info among the names, any top-level `*.data`.
class DataDirectory {
 public:
  explicit DataDirectory(std::span<const std::string> entries) {
    for (const auto& entry : entries) {
      const auto top = std::string_view(entry).substr(0, entry.find('/'));
      if (top.size() != entry.size() && top.ends_with(".dist-info")) {
        m_name = std::string(top.substr(0, top.size() - 10)) + ".data";
        return;
      }
    }
  }
  [[nodiscard]] bool is(std::string_view top) const {
    return m_name ? top == *m_name : top.ends_with(".data");
  }

 private:
  std::optional<std::string> m_name;
};

// Where `entry` lands relative to site-packages; nullopt when it lands elsewhere (scripts,
// headers, data outside site-packages).
std::optional<std::string_view> site_path(std::string_view entry, const DataDirectory& data,
                                          std::string_view site_in_data) {
  const auto slash = entry.find('/');
  if (slash == std::string_view::npos || !data.is(entry.substr(0, slash))) return entry;
  const auto rest = entry.substr(slash + 1);
  for (const std::string_view scheme : {"purelib/", "platlib/"})
    if (rest.starts_with(scheme)) return rest.substr(scheme.size());
  if (!site_in_data.empty() && rest.starts_with(site_in_data))
    return rest.substr(site_in_data.size());
  return std::nullopt;
}

// The module a file at the top of a sys.path directory defines, as importlib's FileFinder looks
// for it: SOURCE_SUFFIXES (.py), BYTECODE_SUFFIXES (.pyc, sourceless), EXTENSION_SUFFIXES
// (`.cpython-313-x86_64-linux-gnu.so`, `.abi3.so`, `.so` on Linux; a tag of another Python is
// not loaded). nullopt for any other file.
std::optional<std::string_view> module_of_file(std::string_view file, std::optional<int> minor) {
  if (file.ends_with(".py")) return file.substr(0, file.size() - 3);
  if (file.ends_with(".pyc")) return file.substr(0, file.size() - 4);
  if (!file.ends_with(".so")) return std::nullopt;
  const auto stem = file.substr(0, file.size() - 3);
  const auto dot = stem.find('.');
  if (dot == std::string_view::npos) return stem;
  const auto tag = stem.substr(dot + 1);
  if (tag == "abi3") return stem.substr(0, dot);
  if (!tag.starts_with("cpython-")) return std::nullopt;
  if (minor) {
    const std::string version = "cpython-3" + std::to_string(*minor);
    if (!tag.starts_with(version)) return std::nullopt;
    const auto after = tag.substr(version.size());
    if (!after.empty() && !after.starts_with('-') && !after.starts_with("t-") && after != "t")
      return std::nullopt;
  }
  return stem.substr(0, dot);
}

std::optional<StartupFile::Kind> kind_of_module(std::string_view name,
                                                std::string_view python_version) {
  if (name == "sitecustomize") return StartupFile::Kind::sitecustomize;
  if (name == "usercustomize") return StartupFile::Kind::usercustomize;
  if (is_stdlib_module(name, python_version)) return StartupFile::Kind::stdlib_shadow;
  return std::nullopt;
}

}  // namespace

bool is_stdlib_module(std::string_view name, std::string_view python_version) {
  const int oldest = stdlib_oldest_minor();
  const int newest = stdlib_newest_minor();
  const int minor = std::clamp(minor_of(python_version).value_or(newest), oldest, newest);
  const auto rows = stdlib_modules();
  auto row = std::ranges::lower_bound(rows, name, {}, &StdlibModule::name);
  for (; row != rows.end() && row->name == name; ++row)
    if (row->first_minor <= minor && minor <= row->last_minor) return true;
  return false;
}

std::vector<StartupFile> startup_code(std::span<const std::string> entry_names,
                                      std::string_view python_version) {
  const auto minor = minor_of(python_version);
  const DataDirectory data(entry_names);
  // The data scheme is the prefix: data/lib/pythonX.Y/site-packages/ is site-packages.
  const std::string site_in_data =
      minor ? "data/lib/python3." + std::to_string(*minor) + "/site-packages/" : std::string();
  std::vector<StartupFile> found;
  for (const auto& entry : entry_names) {
    const auto path = site_path(entry, data, site_in_data);
    if (!path || path->empty()) continue;
    const auto slash = path->find('/');
    StartupFile file;
    if (slash == std::string_view::npos) {
      // site.addsitedir: `name.endswith(".pth")`, and from 3.13 `not name.startswith(".")`.
      if (path->ends_with(".pth")) {
        if (path->starts_with('.') && minor && *minor >= 13) continue;
        found.push_back({StartupFile::Kind::pth_file, std::string(*path), entry, {}});
        continue;
      }
      const auto module = module_of_file(*path, minor);
      if (!module) continue;
      file.module = std::string(*module);
    } else {
      // A regular package: NAME/__init__ in any of a module's forms, directly below the top.
      const auto rest = path->substr(slash + 1);
      if (rest.find('/') != std::string_view::npos) continue;
      const auto init = module_of_file(rest, minor);
      if (!init || *init != "__init__") continue;
      file.module = std::string(path->substr(0, slash));
    }
    const auto kind = kind_of_module(file.module, python_version);
    if (!kind) continue;
    file.kind = *kind;
    file.path = std::string(*path);
    file.entry = entry;
    found.push_back(std::move(file));
  }
  return found;
}

std::string describe(const StartupFile& file) {
  switch (file.kind) {
    case StartupFile::Kind::pth_file:
      return "a .pth file: site.py executes its lines that start with `import` at every start-up";
    case StartupFile::Kind::sitecustomize:
      return "sitecustomize: site.py imports it at every start-up, in place of the Python's own";
    case StartupFile::Kind::usercustomize:
      return "usercustomize: site.py imports it at every start-up (user site enabled)";
    case StartupFile::Kind::stdlib_shadow:
      return "shadows the standard library's " + file.module + ": on PYTHONPATH every `import " +
             file.module + "` finds it first";
  }
  return {};
}

}  // namespace wheelmod::wheel
