// The Python distributions installed in a site directory, from every metadata form pip and
// setuptools leave: `*.dist-info/METADATA` (PEP 376, core metadata) and `*.egg-info` (a directory
// with PKG-INFO and requires.txt, or a PKG-INFO file of that name: setup.py install, Debian).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "pep/requirement.hpp"

namespace wheelmod::swap {

struct InstalledProject {
  std::string name;                            // as the metadata writes it
  std::string version;                         // "" when the metadata has none
  std::vector<pep::Requirement> requirements;  // Requires-Dist, or requires.txt's
  std::string metadata;                        // the dist-info / egg-info entry's file name
};

/// Where a Python installation keeps packages: PREFIX/lib/pythonX.Y/site-packages (venvs,
/// EasyBuild, pip --prefix), PREFIX/lib/python3/dist-packages and PREFIX/local/lib/pythonX.Y/
/// dist-packages (Debian's python3, pip in /usr/local); lib64 too. In path order.
std::vector<std::filesystem::path> python_directories(const std::filesystem::path& prefix);

/// The Python X.Y a package directory is for: its parent's name (python3.12), else, for Debian's
/// version-less lib/python3, the newest lib/python3.N beside it; "" when neither says.
std::string python_of(const std::filesystem::path& site);

/// Every distribution of `site` in name order (a project with both forms: the dist-info).
/// Entries that do not parse are skipped.
std::vector<InstalledProject> installed_projects(const std::filesystem::path& site);

/// requires.txt as importlib.metadata reads it (CPython Lib/importlib/metadata/__init__.py,
/// Distribution._deps_from_requires_text): lines before any section apply always; a section
/// `[extra]`, `[:marker]` or `[extra:marker]` adds `extra == "extra"` and `(marker)`, joined by
/// `and`, to its lines' markers. Lines that do not parse are skipped.
std::vector<pep::Requirement> parse_requires_txt(std::string_view text);

}  // namespace wheelmod::swap
