#include "wheel/import_names.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <vector>

namespace wheelmod::wheel {

namespace {

bool is_identifier(std::string_view text) {
  if (text.empty() || (text.front() >= '0' && text.front() <= '9')) return false;
  return std::ranges::all_of(text, [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// The module a file of a package directory defines: `m.py`, or an extension module with a tagged
// suffix (`m.abi3.so`, `m.cpython-313-x86_64-linux-gnu.so`: importlib.machinery.EXTENSION_SUFFIXES
// on Linux). A bare `m.so` counts as a shared library, which is what library wheels ship
// (`libcudnn.so`), not a module: setuptools and every build backend tag the extensions they build.
std::optional<std::string> module_of_file(std::string_view file) {
  if (file.ends_with(".py")) {
    const auto stem = file.substr(0, file.size() - 3);
    if (is_identifier(stem)) return std::string(stem);
    return std::nullopt;
  }
  if (!file.ends_with(".so")) return std::nullopt;
  const auto stem = file.substr(0, file.size() - 3);
  const auto dot = stem.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const auto tag = stem.substr(dot + 1);
  if (tag.empty() || tag.find('.') != std::string_view::npos) return std::nullopt;
  if (!is_identifier(stem.substr(0, dot))) return std::nullopt;
  return std::string(stem.substr(0, dot));
}

// Where an entry lands in site-packages: the archive root, or `<dist>.data/purelib/` and
// `.../platlib/` (PEP 427 "Installing a wheel", spread). nullopt: dist-info, other .data
// directories (scripts, headers, data), which nothing imports.
std::optional<std::string_view> installed_path(std::string_view entry) {
  const auto slash = entry.find('/');
  if (slash == std::string_view::npos) return entry;
  const auto top = entry.substr(0, slash);
  if (top.ends_with(".dist-info")) return std::nullopt;
  if (top.ends_with(".data")) {
    const auto rest = entry.substr(slash + 1);
    for (const std::string_view scheme : {"purelib/", "platlib/"})
      if (rest.starts_with(scheme)) return rest.substr(scheme.size());
    return std::nullopt;
  }
  return entry;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const auto at = text.find(separator, start);
    parts.push_back(text.substr(start, at - start));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

std::string joined(const std::vector<std::string_view>& parts, std::size_t count, char separator) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i) {
    if (i != 0) out += separator;
    out += parts[i];
  }
  return out;
}

// The importable names of a wheel's files, as dotted paths.
class ImportTree {
 public:
  explicit ImportTree(std::span<const std::string> entry_names) {
    for (const auto& entry : entry_names) {
      const auto path = installed_path(entry);
      if (!path || path->empty()) continue;
      auto parts = split(*path, '/');
      const bool directory_entry = parts.back().empty();
      if (directory_entry) parts.pop_back();
      // Directories whose names are identifiers, from the top: Python imports no deeper than the
      // first that is not one.
      std::size_t depth = 0;
      const std::size_t dirs = directory_entry ? parts.size() : parts.size() - 1;
      while (depth < dirs && is_identifier(parts[depth])) {
        m_directories.insert(joined(parts, depth + 1, '.'));
        ++depth;
      }
      if (directory_entry || depth != dirs) continue;
      const auto module = module_of_file(parts.back());
      if (!module) continue;
      if (*module == "__init__") {
        if (depth > 0) m_packages.insert(joined(parts, depth, '.'));
      } else {
        m_modules.insert((depth > 0 ? joined(parts, depth, '.') + "." : std::string()) + *module);
      }
      // Every directory above a module holds Python.
      for (std::size_t i = 1; i <= depth; ++i) m_with_python.insert(joined(parts, i, '.'));
    }
  }

  // `import dotted` finds it: each component a directory (package or namespace) or, last, a
  // module.
  [[nodiscard]] bool importable(const std::string& dotted) const {
    return m_directories.contains(dotted) || m_modules.contains(dotted);
  }

  // Top-level names that hold Python: modules, packages, namespace packages with modules below.
  [[nodiscard]] std::vector<std::string> roots() const {
    std::vector<std::string> out;
    for (const auto& name : m_with_python)
      if (name.find('.') == std::string::npos) out.push_back(name);
    for (const auto& name : m_modules)
      if (name.find('.') == std::string::npos) out.push_back(name);
    std::ranges::sort(out);
    out.erase(std::ranges::unique(out).begin(), out.end());
    return out;
  }

  [[nodiscard]] bool is_package(const std::string& dotted) const {
    return m_packages.contains(dotted);
  }

  // A namespace package (no __init__.py) that holds exactly one child with Python is named by
  // that child: `cuda` of cuda-bindings is shared with cuda-core, `cuda.bindings` is this wheel's.
  [[nodiscard]] std::string descend(std::string dotted) const {
    while (m_with_python.contains(dotted) && !m_packages.contains(dotted)) {
      std::vector<std::string> children;
      const std::string prefix = dotted + ".";
      for (const auto& name : m_with_python)
        if (name.starts_with(prefix) && name.find('.', prefix.size()) == std::string::npos)
          children.push_back(name);
      for (const auto& name : m_modules)
        if (name.starts_with(prefix) && name.find('.', prefix.size()) == std::string::npos)
          children.push_back(name);
      if (children.size() != 1) break;
      dotted = children.front();
    }
    return dotted;
  }

 private:
  std::set<std::string> m_directories;  // dotted: "cuda", "cuda.bindings"
  std::set<std::string> m_packages;     // with __init__.py
  std::set<std::string> m_modules;      // files: "cuda.bindings._version"
  std::set<std::string> m_with_python;  // directories with a module at or below them
};

// The dotted paths the default name splits into at its underscores, fewest dots first:
// cuda_bindings -> cuda.bindings. At most 2^7 candidates: longer names are tried whole only.
std::vector<std::string> dotted_splits(const std::string& name) {
  const auto words = split(name, '_');
  std::vector<std::string> out;
  const std::size_t gaps = words.size() - 1;
  if (gaps == 0 || gaps > 7) return out;
  for (unsigned mask = 1; mask < (1U << gaps); ++mask) {
    std::string candidate(words.front());
    for (std::size_t i = 0; i < gaps; ++i) {
      candidate += ((mask >> i) & 1U) != 0 ? '.' : '_';
      candidate += words[i + 1];
    }
    out.push_back(std::move(candidate));
  }
  std::ranges::stable_sort(out, [](const std::string& a, const std::string& b) {
    return std::ranges::count(a, '.') < std::ranges::count(b, '.');
  });
  return out;
}

}  // namespace

std::string default_import_name(std::string_view project) {
  std::string out;
  for (const char c : project)
    out += c == '-' ? '_' : (c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  return out;
}

ExtensionImport extension_import(std::string_view project,
                                 std::span<const std::string> entry_names) {
  const ImportTree tree(entry_names);
  const auto name = default_import_name(project);
  if (tree.importable(name)) return {ExtensionImport::Kind::project_name, name};
  for (const auto& dotted : dotted_splits(name))
    if (tree.importable(dotted)) return {ExtensionImport::Kind::other_name, dotted};

  auto roots = tree.roots();
  std::erase_if(roots, [](const std::string& root) { return root.starts_with('_'); });
  if (roots.empty()) return {ExtensionImport::Kind::nothing, name};
  const auto words = split(name, '_');
  for (const auto& root : roots)
    if (std::ranges::find(words, std::string_view(root)) != words.end())
      return {ExtensionImport::Kind::other_name, tree.descend(root)};
  if (roots.size() == 1) return {ExtensionImport::Kind::other_name, tree.descend(roots.front())};
  // Several unrelated top-level names: the first regular package, else the first name; each
  // imports, which is all the check asks.
  for (const auto& root : roots)
    if (tree.is_package(root)) return {ExtensionImport::Kind::other_name, root};
  return {ExtensionImport::Kind::other_name, tree.descend(roots.front())};
}

}  // namespace wheelmod::wheel
