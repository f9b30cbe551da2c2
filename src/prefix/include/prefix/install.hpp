// Installing wheels into an EasyBuild-style prefix, all or nothing: unpack every wheel into a
// staging directory (wheel/installer.hpp), drop the requirements EasyBuild modules satisfy from
// METADATA, relink at the modules (relink.hpp), byte-compile with the target Python, keep RECORD
// true to every changed file, then move the staging directory into place (staging.hpp).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/reporter.hpp"
#include "prefix/byte_compile.hpp"
#include "prefix/check.hpp"
#include "prefix/provenance.hpp"
#include "prefix/relink.hpp"
#include "prefix/staging.hpp"
#include "wheel/installer.hpp"

namespace wheelmod::prefix {

struct PrefixInstallResult;

struct PrefixInstallRequest {
  std::vector<std::filesystem::path> wheels;  // in install order
  std::filesystem::path prefix;
  std::string python_version;  // X.Y of lib/pythonX.Y
  ReplaceExisting replace = ReplaceExisting::no;
  wheel::InstallOptions wheel_options;
  std::set<std::string> module_provided;           // PEP 503 names the modules satisfy
  std::map<std::string, std::string> provided_by;  // name -> module, for wheelmod.json
  easybuild::MetadataPolicy metadata = easybuild::MetadataPolicy::strip;
  /// PEP 503 names whose wheels win where two wheels ship one path with different bytes: they
  /// are unpacked last, the loser's RECORD row is dropped. Empty: such a clash is refused.
  std::set<std::string> clash_winners;
  std::optional<RelinkOptions> relink;  // nullopt: leave search paths alone
  /// A ROCm wheel's bundled libraries the site's modules provide (rocm_libraries.hpp): removed
  /// with their data before the relink, which then points at the modules (with `relink` only).
  std::optional<easybuild::RocmPlan> rocm;
  std::optional<std::filesystem::path> python_exe;  // nullopt: do not byte-compile
  std::optional<CheckOptions> check;                // nullopt: do not check before committing
  /// Written into the prefix, site-packages and installed wheels filled in (provenance.hpp).
  std::optional<Provenance> provenance;
  /// The text of easybuild/wheelmod-install.log, asked for once the steps are done and written
  /// before the commit, so the installation and its log appear together.
  std::function<std::string(const PrefixInstallResult&)> log;
};

struct PrefixInstallResult {
  std::filesystem::path prefix;
  std::vector<wheel::InstalledWheel> wheels;
  std::optional<RelinkReport> relink;     // paths relative to the prefix
  std::vector<std::string> rocm_removed;  // bundled ROCm files removed, relative to site-packages
  std::vector<std::string> rocm_links;    // SONAME links made beside bundled ROCm libraries
  ByteCompileResult compile;
  std::optional<CheckSummary> check;
};

/// Does it all in a staging directory, committed only when every step succeeded; on failure the
/// staging directory is removed and the prefix (old or absent) is untouched. Throws what the steps
/// throw: UsageError (prefix exists without replace), IntegrityError (a wheel), CheckFailedError
/// (a library no module provides, or one the static loader cannot find: the check runs on the
/// staged tree, so a prefix that would not load is never committed), IoError.
PrefixInstallResult install_into_prefix(const PrefixInstallRequest& request, Reporter& reporter);

}  // namespace wheelmod::prefix
