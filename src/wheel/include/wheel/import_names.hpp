// What a wheel makes importable, from the names of its archive entries alone (its central
// directory, which its RECORD lists file by file): the name EasyBuild's extension sanity check
// imports (`python -c "import <modulename>"`), decided by what the wheel installs instead of a
// table of known projects. Pure: names in, a decision out.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace wheelmod::wheel {

struct ExtensionImport {
  enum class Kind {
    project_name,  // EasyBuild's default works: the project's name, lower case, '-' as '_'
    other_name,    // `name` is what the wheel installs: "PIL", "cuda.bindings", "triton"
    nothing,       // no Python module at all (NVIDIA's library wheels): modulename False
  };
  Kind kind = Kind::project_name;
  std::string name;  // the dotted name for other_name; the default name otherwise
};

/// EasyBuild's default import name of an extension: easybuild-easyblocks
/// generic/pythonpackage.py (PythonPackage.__init__ as an extension) sets
/// `modulename = name.lower().replace('-', '_')`.
std::string default_import_name(std::string_view project);

/// Decides the import check of `project` from its wheel's entry names (as in the zip: `a/b.py`,
/// `x-1.0.dist-info/RECORD`, `x-1.0.data/purelib/m.py`). A name is importable as Python imports
/// it: a directory (a package, or a PEP 420 namespace package without `__init__.py`), a `.py`
/// source or an extension module (`m.so`, `m.abi3.so`, `m.cpython-313-x86_64-linux-gnu.so`). In
/// order: the default name when the wheel installs it; else the default name split at its
/// underscores into a dotted path the wheel installs (cuda-bindings: `cuda.bindings`); else the
/// wheel's one top-level module, or the one named by a word of the project's name
/// (pytorch-triton-rocm: `triton`), descending namespace packages that hold a single package; else
/// `nothing` when no entry is a Python module.
ExtensionImport extension_import(std::string_view project,
                                 std::span<const std::string> entry_names);

}  // namespace wheelmod::wheel
