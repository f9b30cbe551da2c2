#include "operations/site.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "core/errors.hpp"

namespace wheelmod::operations {

namespace fs = std::filesystem;

SiteSettings site_settings(const std::string& eb_installpath, const easybuild::Getenv& getenv) {
  const auto eb = easybuild::EasyBuildSettings::read(getenv);
  SiteSettings site{.software = eb.software_path(),
                    .modules = eb.modules_path(),
                    .locks = eb.locks_dir(),
                    .lock_wait = {},
                    .module_syntax = eb.get("module-syntax"),
                    .naming_scheme = eb.get("module-naming-scheme"),
                    .suffix_modules_path = eb.get("suffix-modules-path"),
                    .files = eb.files()};
  // easybuild/tools/options.py: wait-on-lock-limit (seconds; 0 no wait, -1 for ever) and
  // wait-on-lock-interval (seconds, default 60).
  const auto number = [&](const char* option, long fallback) {
    const auto setting = eb.get(option);
    if (!setting) return fallback;
    try {
      return std::stol(setting->value);
    } catch (const std::exception&) {
      throw UsageError(setting->origin, std::string(option) + " = " + setting->value +
                                            " is not a number of seconds");
    }
  };
  site.lock_wait.limit_seconds = number("wait-on-lock-limit", 0);
  site.lock_wait.interval = std::chrono::seconds(std::max(1L, number("wait-on-lock-interval", 60)));
  if (!eb_installpath.empty()) {
    const auto root = fs::absolute(eb_installpath).lexically_normal();
    // Where the modules wheelmod relinks at live; the new module's place stays EasyBuild's
    // (installpath-modules) or, without one, beside the prefix (install.cpp, module_plan).
    site.software = {(root / "software").string(), "--eb-installpath"};
    if (!eb.get("locks-dir"))
      site.locks = {(root / "software" / ".locks").string(), "--eb-installpath"};
  }
  return site;
}

ModuleLayout module_layout(const SiteSettings& site, const ModuleLayoutChoice& choice,
                           const easybuild::Generation& generation, const fs::path& prefix) {
  ModuleLayout layout;
  if (!choice.naming_scheme.empty()) {
    layout.naming = easybuild::ModuleNaming(
        easybuild::parse_naming_scheme(choice.naming_scheme, "--module-naming-scheme"), generation);
  } else if (site.naming_scheme) {
    layout.naming = easybuild::ModuleNaming(
        easybuild::parse_naming_scheme(site.naming_scheme->value,
                                       "module-naming-scheme (" + site.naming_scheme->origin + ")"),
        generation);
  }
  if (choice.syntax) {
    layout.syntax = *choice.syntax;
  } else if (site.module_syntax) {
    // options.py: module-syntax is a choice of 'Lua' and 'Tcl'.
    if (site.module_syntax->value == "Tcl") {
      layout.syntax = emit::ModuleSyntax::tcl;
    } else if (site.module_syntax->value != "Lua") {
      throw UsageError("module-syntax (" + site.module_syntax->origin + ")",
                       "'" + site.module_syntax->value + "' is neither Lua nor Tcl",
                       "EasyBuild accepts Lua or Tcl; or pass --syntax");
    }
  }
  if (site.suffix_modules_path) layout.suffix = site.suffix_modules_path->value;
  if (!choice.modulepath.empty()) {
    layout.modulepath = fs::absolute(choice.modulepath).lexically_normal();
  } else if (site.modules.origin != "EasyBuild's default") {
    layout.modulepath = site.modules.value;  // where `eb` would write the module
  } else {
    layout.modulepath = emit::default_modulepath(prefix);
  }
  return layout;
}

}  // namespace wheelmod::operations
