// `wheelmod install`: resolve, fetch, unpack, relink, byte-compile and check wheels into an
// EasyBuild-style prefix, all or nothing; with its module file when asked.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/reporter.hpp"
#include "easybuild/config.hpp"
#include "emit/module_writer.hpp"
#include "operations/selection.hpp"
#include "prefix/install.hpp"

namespace wheelmod::operations {

struct InstallOptions {
  Selection selection;              // SPEC..., or
  std::vector<std::string> wheels;  // wheel files, installed as they are
  DownloadSettings download;
  std::string prefix;                // "": EasyBuild's name for it under the site's software path
  std::string eb_installpath;        // "": EasyBuild's configuration (site.hpp), and loaded EBROOT*
  std::vector<std::string> modules;  // preferred where several provide a library
  std::string python_exe;            // "": $EBROOTPYTHON/bin/python
  std::string patchelf = "patchelf";
  easybuild::MetadataPolicy metadata = easybuild::MetadataPolicy::strip;
  unsigned threads = 0;  // 0: one per core
  bool force = false;    // replace an existing prefix (and module file)
  /// Projects whose wheel's file is kept where two wheels ship one path with different bytes
  /// (--clash-winner); without one such a clash is refused.
  std::vector<std::string> clash_winners;
  bool no_compile = false;
  bool write_module = false;
  std::string modulepath;                           // "": <installpath>/modules beside software/
  std::optional<emit::ModuleSyntax> module_syntax;  // nullopt: EasyBuild's module-syntax, Lua
  std::string module_naming_scheme;  // "": EasyBuild's module-naming-scheme, EasyBuildMNS
};

struct InstallResult {
  prefix::PrefixInstallResult install;
  std::optional<std::filesystem::path> module_file;
  std::string module_name;  // what `module load` takes: PyTorch/2.6.0-foss-2024a-CUDA-12.6.0-whl
};

/// Throws UsageError (bad options, an existing prefix or module file), CheckFailedError (a CUDA
/// library no module provides, before any download; or a library that does not load, before the
/// commit), and what resolving, downloading and unpacking throw.
InstallResult install(const InstallOptions& options, Reporter& reporter);

}  // namespace wheelmod::operations
