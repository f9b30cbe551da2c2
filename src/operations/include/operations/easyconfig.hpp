// `wheelmod easyconfig`: Stage-1 easyconfigs (PythonBundles of the official wheels) for a
// toolchain and accelerator, resolved once per architecture, every wheel with its sha256 (the
// index's, or computed from the downloaded file), all written into the output directory or none.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/reporter.hpp"
#include "easybuild/config.hpp"
#include "easybuild/rocm_libraries.hpp"
#include "emit/easyconfig_plan.hpp"
#include "operations/selection.hpp"

namespace wheelmod::operations {

/// What an extension's source_urls name. index: where wheelmod found the wheel (a mirror's
/// copy, a file:// tree). upstream: where it came from, public https URLs: a wheelmod mirror's
/// manifest records each file's origin; any other index's URLs must be https themselves.
/// automatic: upstream when the index is a wheelmod mirror whose origins are all https, else
/// index. Wheels hosted on PyPI (files.pythonhosted.org) get no source_urls at all in every mode:
/// EasyBuild's PythonPackage default (PYPI_SOURCE) finds them.
enum class SourceUrls { automatic, upstream, index };

struct EasyconfigOptions {
  Selection selection;  // arch: comma-separated, default x86_64,aarch64; glibc default 2.28
  DownloadSettings download;
  std::string output_dir;
  std::string templates;      // site templates, before the shipped ones
  std::string versionsuffix;  // "": -whl, -CUDA-%(cudaver)s-whl, -ROCm-<version>-whl
  easybuild::MetadataPolicy metadata = easybuild::MetadataPolicy::strip;  // as install
  bool with_relink = false;  // postinstallcmds run `wheelmod relink` and `check`
  /// ROCm builds: auto and modules take the bundled ROCm libraries the generation's ROCm modules
  /// provide from those modules (dependencies; relink removes the wheel's copies), which needs
  /// --with-relink and a stack of the wheel's ROCm major.minor; modules refuses (exit 2) where it
  /// cannot (emit::choose_rocm_libraries).
  easybuild::RocmLibraryMode rocm_libraries = easybuild::RocmLibraryMode::automatic;
  bool force = false;  // replace .eb files that exist
  /// Write files whose requirements are not all met (each noted `# wheelmod: to add`) instead of
  /// refusing with exit 3: EasyBuild's pip check fails them until the maintainer adds what is
  /// missing.
  bool write_unmet = false;
  SourceUrls source_urls = SourceUrls::automatic;
  SiteModules site;  // --eb-installpath, --prefer-module: the site's modules, as resolve
};

struct WrittenEasyconfig {
  std::filesystem::path path;
  std::string name;
  std::string version;
  std::string versionsuffix;
  std::string toolchain;  // foss-2024a
};

struct EasyconfigResult {
  std::filesystem::path output_dir;
  std::string variant;  // cu126
  std::vector<WrittenEasyconfig> written;
  std::map<std::string, std::string> computed_sha256;  // wheel file -> digest the index lacked
  std::vector<emit::ToAdd> to_add;                     // what the maintainer must add
};

/// Throws UsageError (options, an .eb file that exists), UnsatisfiableError
/// (naming the architecture; requirements the files would leave unmet, unless write_unmet), and
/// what resolving and downloading throw.
EasyconfigResult easyconfig(const EasyconfigOptions& options, Reporter& reporter);

}  // namespace wheelmod::operations
