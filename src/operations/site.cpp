#include "operations/site.hpp"

#include <filesystem>

namespace wheelmod::operations {

namespace fs = std::filesystem;

SiteSettings site_settings(const std::string& eb_installpath, const easybuild::Getenv& getenv) {
  const auto eb = easybuild::EasyBuildSettings::read(getenv);
  SiteSettings site{.software = eb.software_path(),
                    .modules = eb.modules_path(),
                    .locks = eb.locks_dir(),
                    .module_syntax = eb.get("module-syntax"),
                    .naming_scheme = eb.get("module-naming-scheme"),
                    .suffix_modules_path = eb.get("suffix-modules-path"),
                    .files = eb.files()};
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

}  // namespace wheelmod::operations
