// Installing one wheel into a prefix (PEP 427, the PyPA "Binary distribution format" and
// "Recording installed projects" specs): entries unpacked with libzip (kept out of this header)
// on several threads, each hashed as written and checked against RECORD; `.data` directories
// mapped to the scheme, console scripts written, and a new RECORD of the installed paths.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/reporter.hpp"
#include "pep/record.hpp"

namespace wheelmod::wheel {

/// EasyBuild's layout for a Python prefix: `lib/pythonX.Y/site-packages`, `bin`,
/// `include/pythonX.Y/<name>`, and the prefix itself for `.data/data`.
struct InstallScheme {
  std::filesystem::path root;  // the prefix (or the staging directory standing in for it)
  std::string python_version;  // "3.12": the X.Y of lib/pythonX.Y
  [[nodiscard]] std::filesystem::path purelib() const;
  [[nodiscard]] std::filesystem::path platlib() const;  // the same directory as purelib
  [[nodiscard]] std::filesystem::path scripts() const;
  [[nodiscard]] std::filesystem::path headers(std::string_view project) const;
  [[nodiscard]] std::filesystem::path data() const;
};

struct WrittenFiles {
  std::function<bool(const std::filesystem::path&)> wants;
  std::function<void(const std::filesystem::path&, std::uint64_t size)> take;
};

struct InstallOptions {
  unsigned threads = 0;                // threads unpacking entries; 0 = one per core
  std::string installer = "wheelmod";  // written to the dist-info's INSTALLER file
  /// "#!" + this heads `.data/scripts` files starting with `#!python` and console-script
  /// wrappers; `/usr/bin/env python` finds the module's Python on PATH.
  std::string script_interpreter = "/usr/bin/env python";
  /// An entry larger than this many times its compressed size (and 1 MiB) is refused as a zip bomb.
  std::uint64_t max_compression_ratio = 1000;
  /// Files another stage takes as soon as they are written (byte-compiling, while the large
  /// entries still inflate): `wants` picks them by destination, they are unpacked right after the
  /// largest entry, and `take` is called on an unpacking thread as each is complete.
  WrittenFiles written_files;
};

struct InstalledWheel {
  std::string name;     // PEP 503 normalised
  std::string version;  // as in the wheel's METADATA
  /// Relative to scheme.root: lib/python3.12/site-packages/torch-2.6.0.dist-info
  std::filesystem::path dist_info;
  /// The installed RECORD, paths relative to site-packages (../../../bin/x for scripts).
  std::vector<pep::RecordEntry> record;
  std::uint64_t files = 0;
  std::uint64_t bytes = 0;  // uncompressed bytes written
};

/// Installs `wheel_file` under scheme.root. Throws IntegrityError (exit 5) for an unsafe archive
/// (absolute or `..` paths, control characters, symlinks, duplicate names, sizes that disagree
/// with the central directory, zip bombs, a missing or malformed RECORD) or an entry whose hash
/// or size differs from RECORD; IoError (exit 4) for file-system failures; UsageError (exit 2)
/// when the file is not a wheel (name, zip, WHEEL file, Wheel-Version major other than 1). A
/// failure leaves what was written under scheme.root: callers install into a staging directory.
InstalledWheel install_wheel(const std::filesystem::path& wheel_file, const InstallScheme& scheme,
                             const InstallOptions& options, Reporter& reporter);

/// The libzip wheelmod unpacks with, as it reports itself at run time ("1.9.2").
std::string zip_library_version();

}  // namespace wheelmod::wheel
