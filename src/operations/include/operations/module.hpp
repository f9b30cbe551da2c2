// `wheelmod module PREFIX`: the Lmod (Lua) or Tcl module file for a prefix `wheelmod install`
// made, written atomically into an EasyBuild module tree, or only rendered.
#pragma once

#include <optional>
#include <string>

#include "core/environment.hpp"
#include "core/reporter.hpp"
#include "emit/module_writer.hpp"

namespace wheelmod::operations {

struct ModuleOptions {
  std::string prefix;
  std::optional<emit::ModuleSyntax> syntax;  // nullopt: EasyBuild's module-syntax, else Lua
  std::string naming_scheme;                 // "": EasyBuild's module-naming-scheme
  std::string config_dir;                    // site tables (--config), for HierarchicalMNS
  std::string modulepath;          // "": EasyBuild's installpath-modules, else beside software/
  std::string moduleclass = "ai";  // operations::k_default_moduleclass (module_file.hpp)
  std::string name;                // "": the prefix's parent directory
  std::string full_version;        // "": the prefix's directory
  std::string description;         // "": the main wheel's Summary and where the wheels came from
  std::string origin;
  emit::PythonSearchPath python_search_path = emit::PythonSearchPath::automatic;
  std::string templates;   // site templates, before the shipped ones
  bool to_stdout = false;  // render only
  bool force = false;      // replace an existing module file
  bool strict = false;     // a module it loads that no module tree has fails (exit 6)
  Getenv getenv = process_environment();  // EasyBuild's configuration (module tree, naming)
};

struct ModuleResult {
  std::string module;  // Name/fullversion
  std::string text;
  std::optional<emit::ModuleTarget> target;  // where it was written; nullopt with to_stdout
};

/// Warnings (a Python it cannot import with) go to `reporter`. Throws UsageError (not a prefix
/// wheelmod made, no module tree, an existing module file without force), IoError.
ModuleResult module(const ModuleOptions& options, Reporter& reporter);

}  // namespace wheelmod::operations
