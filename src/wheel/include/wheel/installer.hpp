// Installing one wheel into a prefix (PEP 427 "Installing a wheel", the
// PyPA "Binary distribution format" and "Recording installed projects"
// specifications): entries unpacked with libzip on several threads, each
// hashed while it is written and checked against the wheel's RECORD, the
// `.data` directories mapped to the scheme, console scripts written, and
// a new RECORD listing the installed paths. libzip stays out of this header.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/reporter.hpp"
#include "pep/record.hpp"

namespace wheelmod::wheel {

/// Where each part of a wheel goes, EasyBuild's layout for a Python
/// prefix: `lib/pythonX.Y/site-packages`, `bin`, `include/pythonX.Y/<name>`
/// and the prefix itself for `.data/data`.
struct InstallScheme {
  std::filesystem::path root;  // the prefix (or the staging directory standing in for it)
  std::string python_version;  // "3.12": the X.Y of lib/pythonX.Y
  [[nodiscard]] std::filesystem::path purelib() const;
  [[nodiscard]] std::filesystem::path platlib() const;  // the same directory as purelib
  [[nodiscard]] std::filesystem::path scripts() const;
  [[nodiscard]] std::filesystem::path headers(std::string_view project) const;
  [[nodiscard]] std::filesystem::path data() const;
};

struct InstallOptions {
  /// Threads unpacking entries (0 = one per core).
  unsigned threads = 0;
  /// Written to the dist-info's INSTALLER file.
  std::string installer = "wheelmod";
  /// The interpreter line for scripts: `.data/scripts` files starting with
  /// `#!python` and generated console-script wrappers get
  /// "#!" + this. `/usr/bin/env python` finds the module's Python on PATH.
  std::string script_interpreter = "/usr/bin/env python";
  /// An entry whose uncompressed size exceeds this many times its
  /// compressed size (and 1 MiB) is refused as a zip bomb.
  std::uint64_t max_compression_ratio = 1000;
};

struct InstalledWheel {
  std::string name;     // PEP 503 normalised
  std::string version;  // as in the wheel's METADATA
  /// Relative to scheme.root: lib/python3.12/site-packages/torch-2.6.0.dist-info
  std::filesystem::path dist_info;
  /// The installed RECORD, paths relative to the site-packages directory
  /// as the spec requires (../../../bin/x for scripts).
  std::vector<pep::RecordEntry> record;
  std::uint64_t files = 0;
  std::uint64_t bytes = 0;  // uncompressed bytes written
};

/// Installs `wheel_file` under scheme.root. Throws IntegrityError (exit 5)
/// for an unsafe archive (absolute or `..` paths, control characters,
/// symlinks, duplicate names, sizes that disagree with the central
/// directory, zip bombs, a missing or malformed RECORD) or an entry whose
/// hash or size differs from RECORD; IoError (exit 4) for file-system
/// failures; UsageError (exit 2) when the file is not a wheel (name, zip,
/// WHEEL file, Wheel-Version major other than 1). What was written before
/// a failure stays under scheme.root: the caller installs into a staging
/// directory and removes it (the prefix stays untouched).
InstalledWheel install_wheel(const std::filesystem::path& wheel_file, const InstallScheme& scheme,
                             const InstallOptions& options, Reporter& reporter);

}  // namespace wheelmod::wheel
