// Where the site's EasyBuild installs software and modules: --eb-installpath when given, else
// what `eb` itself would use (easybuild::EasyBuildSettings), each with where it came from.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "easybuild/eb_lock.hpp"
#include "easybuild/eb_settings.hpp"

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

}  // namespace wheelmod::operations
