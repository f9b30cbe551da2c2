// Start-up code in a wheel: what it installs into site-packages that Python runs without anyone
// importing it, in every process of every user of the module. site.py (Python's `site` module
// documentation, https://docs.python.org/3/library/site.html) reads each `*.pth` file of a site
// directory at start-up and executes its lines that start with `import`; it then imports
// `sitecustomize` and, with the user site enabled, `usercustomize`, from anywhere on sys.path. And
// a module named as one of the standard library's (sys.stdlib_module_names) is found before the
// standard library's own when its directory comes first on sys.path, as PYTHONPATH's entries do.
// Pure: entry names in, findings out (but read_entry_names, which reads a wheel file).
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wheelmod::wheel {

/// One file of a wheel that runs at start-up or shadows the standard library.
struct StartupFile {
  enum class Kind {
    pth_file,       // site-packages/NAME.pth: its `import` lines run at start-up (site.addsitedir)
    sitecustomize,  // `sitecustomize` (module, package or extension): site.py imports it
    usercustomize,  // `usercustomize`: site.py imports it when the user site is enabled
    stdlib_shadow,  // a top-level module or package named as a standard library module
  };
  Kind kind = Kind::pth_file;
  std::string path;    // where it lands, relative to site-packages: "json/__init__.py"
  std::string entry;   // the archive entry: "evil-1.0.data/purelib/json/__init__.py"
  std::string module;  // what `import` finds it as: "json", "sitecustomize"; "" for a .pth file
};

/// The start-up code among a wheel's archive entries (its central directory, as in the zip: `a.py`,
/// `x-1.0.data/purelib/m.py`, `x-1.0.dist-info/RECORD`) for the target Python `python_version`
/// ("3.13", "3.13t"; the X.Y of lib/pythonX.Y). An entry counts where the wheel installs it into
/// site-packages: the archive root, `<dist>.data/purelib/` and `.../platlib/` (PEP 427,
/// "Installing a wheel", spread), and `<dist>.data/data/lib/pythonX.Y/site-packages/` for the
/// target's X.Y (the data scheme is the prefix). Found, each once, in entry order:
/// * a top-level `*.pth` file (from 3.13, site.py skips names that start with a dot);
/// * `sitecustomize` and `usercustomize` as Python's path finder finds a module: `NAME.py`,
///   `NAME.pyc`, an extension module (`NAME.so`, `NAME.abi3.so`, `NAME.cpython-313-<platform>.so`:
///   importlib.machinery.EXTENSION_SUFFIXES), or a regular package (`NAME/__init__.py`, ...);
/// * a top-level module or regular package of the same forms whose name is in the standard library
///   of the target Python (is_stdlib_module): `json.py`, `json/__init__.py`, `_ssl.abi3.so`.
/// Names are compared as the file system does on Linux, case and all (`JSON.py` is no `json`); a
/// directory without `__init__` (a namespace portion) shadows nothing and runs nothing; nested
/// files (`pkg/json.py`, `pkg/x.pth`) are not at the top.
std::vector<StartupFile> startup_code(std::span<const std::string> entry_names,
                                      std::string_view python_version);

/// Whether `name` is a top-level module of CPython X.Y's standard library: sys.stdlib_module_names
/// of that version (3.10-3.13), 3.14's additions, the older versions' own standard libraries
/// (3.6-3.9); a version outside the table is given its nearest end (a newer Python: the newest).
/// Private modules (`_json`) count: a shared-library build finds them on sys.path too.
bool is_stdlib_module(std::string_view name, std::string_view python_version);

/// Why a kind of start-up file matters, for messages: "site.py runs its `import` lines at every
/// start-up".
std::string describe(const StartupFile& file);

/// The entry names of the wheel file at `wheel_file`, from its central directory, as the
/// installer reads it (every layout check included: IntegrityError naming the file for an
/// archive zip readers would read differently, IoError when it cannot be read). Empty when the
/// file is no zip archive at all: installing it says why.
std::vector<std::string> read_entry_names(const std::filesystem::path& wheel_file);

}  // namespace wheelmod::wheel
