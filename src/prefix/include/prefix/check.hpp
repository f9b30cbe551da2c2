// `wheelmod check`: does every library of a prefix load without LD_LIBRARY_PATH, as a module that
// sets none runs it? The static loader (elf/loader.hpp) resolves each DT_NEEDED as ld.so does; this
// gathers failures, GPU driver libraries, and what comes from outside the prefix and module tree.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "elf/loader.hpp"

namespace wheelmod::prefix {

struct CheckOptions {
  /// Search LD_LIBRARY_PATH as it is now (default: unset, like a module environment).
  bool use_ld_library_path = false;
  /// Directories whose libraries are expected (the module tree); the prefix always is.
  std::vector<std::filesystem::path> allowed_roots;
  /// Libraries that must come from a module (SONAME -> module; the provenance's
  /// module_libraries): one loaded from outside the allowed roots fails the check.
  std::map<std::string, std::string> module_libraries;
};

/// A library the installation takes from a module, loaded from somewhere else.
struct MisplacedLibrary {
  std::string library;  // libcupti.so.13
  std::string path;     // where it loads from here (/usr/local/cuda-13.0/lib/libcupti.so.13)
  std::string module;   // where it should: CUDA/13.3.0
  std::string file;     // the first prefix file that loads it (relative to the prefix)
};

struct UnresolvedLibrary {
  std::string file;       // the prefix file whose load fails (relative to the prefix)
  std::string library;    // the DT_NEEDED entry
  std::string needed_by;  // the object that needs it
  std::string problem;    // "not found" or the loader's reason
};

struct CheckSummary {
  std::filesystem::path prefix;
  std::size_t files = 0;                      // ELF files checked
  std::vector<UnresolvedLibrary> unresolved;  // each (file, library) once
  std::vector<std::string> drivers;           // driver libraries missing here (fine on login nodes)
  std::vector<std::string> outside;         // libraries loaded from outside prefix, modules, system
  std::vector<MisplacedLibrary> misplaced;  // module libraries loaded from elsewhere
  [[nodiscard]] bool passed() const { return unresolved.empty() && misplaced.empty(); }
};

/// Checks every ELF file under `prefix`. Throws IoError when it cannot be walked.
CheckSummary check_prefix(const std::filesystem::path& prefix, const CheckOptions& options);

/// The error of a failed check (exit 6), listing the unresolved and misplaced libraries.
CheckFailedError check_failure(const CheckSummary& summary);

}  // namespace wheelmod::prefix
