// Byte-compiling an installation: module trees are read-only for users, so `__pycache__` must be
// written at install time or every `import torch` recompiles thousands of files. The target
// Python compiles, on every core (its .pyc tags and magic numbers are what it will load).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace wheelmod::prefix {

struct ByteCompileResult {
  bool ran = false;
  std::string skipped;                 // why not, when !ran ("python3.11 is not the target's 3.12")
  std::string warnings;                // compileall's complaints about files it could not compile
  std::vector<std::string> pyc_files;  // written, relative to the staging site-packages
};

/// Compiles every .py under `staging_site` with `python` when its X.Y is `python_version`, so
/// that tracebacks and .pyc files name the final location (`-s staging -p final`, Python 3.9+).
/// Files that do not compile (Python 2 leftovers) are reported, not fatal, as pip does. Throws
/// nothing for a missing interpreter: `skipped` says so.
ByteCompileResult byte_compile(const std::filesystem::path& python,
                               const std::string& python_version,
                               const std::filesystem::path& staging_site,
                               const std::filesystem::path& final_site, unsigned processes);

/// The source a .pyc was compiled from: `a/__pycache__/b.cpython-312.opt-1.pyc`
/// -> `a/b.py`; "" for a path that is not in a __pycache__ directory.
std::string source_of_pyc(const std::string& pyc);

}  // namespace wheelmod::prefix
