// The transparent swap: dependents name the canonical module (PyTorch/2.7.1-foss-2024a-CUDA-12.6.0)
// and Lmod resolves it to the build in use through a `module_version` alias in `.modulerc.lua`
// (Lmod mrc_funcs.lua: module_version(full_name, version...) gives full_name an extra version).
// A swap rewrites that line by rename, recording the previous target for --rollback; every build
// keeps its own module file (the wheel one under its -whl name).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace wheelmod::swap {

struct ModuleAlias {
  std::filesystem::path rc_file;        // MODULEPATH/all/PyTorch/.modulerc.lua
  std::string name;                     // PyTorch
  std::string version;                  // the canonical version: 2.7.1-foss-2024a-CUDA-12.6.0
  std::optional<std::string> target;    // PyTorch/2.7.1-…-whl, when the alias exists
  std::optional<std::string> previous;  // what it pointed at before the last swap
};

/// Reads the alias of `canonical` ("Name/version") under `modulepath` (holding all/Name/...);
/// a missing .modulerc.lua means no alias yet.
ModuleAlias read_alias(const std::filesystem::path& modulepath, const std::string& canonical);

/// Points the alias at `target` (a full module name), recording the old
/// target as previous; other lines of the file are kept. Atomic (rename).
void write_alias(const ModuleAlias& alias, const std::string& target);

/// A full module name's all/Name/version.lua, else the Tcl all/Name/version; else UsageError.
std::filesystem::path module_file(const std::filesystem::path& modulepath,
                                  const std::string& module);

/// The installation prefix a module file sets: `local root = "…"` (Lua, as
/// EasyBuild and wheelmod write it) or `set root …` (Tcl). Throws UsageError.
std::filesystem::path module_root(const std::filesystem::path& file);

/// The dependents: prefixes of modules under `modulepath` that depends_on/load/prereq `canonical`.
std::vector<std::filesystem::path> dependents_of(const std::filesystem::path& modulepath,
                                                 const std::string& canonical);

}  // namespace wheelmod::swap
