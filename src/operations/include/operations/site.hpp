// Where the site's EasyBuild installs software and modules: --eb-installpath when given, else
// what `eb` itself would use (easybuild::EasyBuildSettings), each with where it came from.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "easybuild/config.hpp"
#include "easybuild/eb_lock.hpp"
#include "easybuild/eb_settings.hpp"
#include "easybuild/module_naming.hpp"
#include "emit/module_writer.hpp"

namespace wheelmod::operations {

struct SiteSettings {
  easybuild::Setting software;    // <software>/<Name>/<version>: modules' installation directories
  easybuild::Setting modules;     // the module tree (all/, moduleclass directories)
  easybuild::Setting locks;       // EasyBuild's lock directory for installations
  easybuild::LockWait lock_wait;  // wait-on-lock-limit / -interval (eb's defaults: 0, 60 s)
  std::optional<easybuild::Setting> module_syntax;
  std::optional<easybuild::Setting> naming_scheme;
  std::optional<easybuild::Setting> suffix_modules_path;
  std::vector<std::string> files;  // EasyBuild configuration files read
};

/// `eb_installpath` ("" when not given) wins for the software path (DIR/software) and the locks
/// (DIR/software/.locks), not for the module tree.
/// Throws UsageError for an unreadable EasyBuild configuration file.
SiteSettings site_settings(const std::string& eb_installpath,
                           const easybuild::Getenv& getenv = easybuild::process_environment());

/// How modules are written at the site: the command line's choice, else EasyBuild's
/// module-naming-scheme, module-syntax and suffix-modules-path, else EasyBuild's defaults
/// (EasyBuildMNS, Lua, all; easybuild/tools/options.py).
struct ModuleLayout {
  easybuild::ModuleNaming naming;
  emit::ModuleSyntax syntax = emit::ModuleSyntax::lua;
  std::string suffix = "all";
  std::optional<std::filesystem::path> modulepath;  // the tree's root: <modulepath>/<suffix>/...
};

/// `modulepath_option`, else installpath-modules when the site configures it, else
/// `<installpath>/modules` beside the prefix's software/ (nullopt: none of these).
/// Throws UsageError for a naming scheme wheelmod does not write, or a module-syntax that is
/// neither Lua nor Tcl.
struct ModuleLayoutChoice {
  std::string naming_scheme;                 // --module-naming-scheme; "": the site's
  std::optional<emit::ModuleSyntax> syntax;  // --syntax; nullopt: the site's
  std::string modulepath;                    // --modulepath; "": the site's
};
ModuleLayout module_layout(const SiteSettings& site, const ModuleLayoutChoice& choice,
                           const easybuild::Generation& generation,
                           const std::filesystem::path& prefix);

}  // namespace wheelmod::operations
