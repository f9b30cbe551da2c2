// A static model of ld.so's library search (ld.so(8), "If a shared object dependency does not
// contain a slash ..."), for `wheelmod check`: the file each DT_NEEDED of an object resolves to,
// in glibc's breadth-first loading order, without loading anything.
// Modelled (glibc 2.36, elf/dl-load.c _dl_map_object, elf/dl-deps.c _dl_map_object_deps): an
// object already loaded satisfies a request for its SONAME or a name it was loaded under; a name
// with a slash is a path; otherwise DT_RPATH of the requester and its loaders up to the root (only
// when the requester has no DT_RUNPATH; an object with DT_RUNPATH has no DT_RPATH at all),
// LD_LIBRARY_PATH, the requester's DT_RUNPATH, /etc/ld.so.cache, the system directories, each
// directory after its glibc-hwcaps and legacy hwcap subdirectories. A candidate of another ELF
// class or machine is skipped; a file that is no loadable ELF stops the search (ld.so fails).
// Not modelled: LD_PRELOAD, DF_1_NODEFLIB (-z nodefaultlib), secure-execution mode,
// DT_AUXILIARY / DT_FILTER, the kernel-version ABI note.
#pragma once

#include <cstddef>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "elf/elf_file.hpp"

namespace wheelmod::elf {

// ---- /etc/ld.so.cache ("glibc-ld.so.cache1.1", written by ldconfig) ----

struct LdSoCacheEntry {
  std::int32_t flags = 0;  // type | required ABI: 0x0303 = libc6,x86-64
  std::string name;        // the SONAME ldconfig found ("libz.so.1")
  std::string path;        // the file ("/lib/x86_64-linux-gnu/libz.so.1")
  std::uint64_t hwcap = 0;
  std::optional<std::string> glibc_hwcaps;  // set for DIR/glibc-hwcaps/SUBDIR ("x86-64-v3")
};

struct LdSoCache {
  std::vector<LdSoCacheEntry> entries;  // file order (the order `ldconfig -p` prints)
  std::string generator;  // "ldconfig (GNU libc) stable release version 2.36"; may be empty

  /// The path ld.so takes from the cache for `name` for an object of `elf_class` / `machine`:
  /// the best entry of an active glibc-hwcaps subdirectory (`glibc_hwcaps`, highest priority
  /// first), else the first plain entry. nullopt when none fits or the ABI's cache flags are not
  /// modelled (ld.so's step 4 is then skipped rather than guessed).
  [[nodiscard]] std::optional<std::string> lookup(std::string_view name, ElfClass elf_class,
                                                  std::uint16_t machine,
                                                  std::span<const std::string> glibc_hwcaps) const;
};

/// Parses an ld.so.cache: the new format alone (glibc >= 2.32 default) or after the old
/// "ld.so-1.7.0" table (ldconfig -c compat, the default before 2.32). Errors say what and where.
std::expected<LdSoCache, std::string> parse_ld_so_cache(std::span<const std::byte> bytes);

/// Throws IoError naming `file` when it cannot be read or is not a cache ldconfig wrote.
LdSoCache read_ld_so_cache(const std::filesystem::path& file);

// ---- What the loader's host is like ----

/// The values ld.so would use; injectable, as `wheelmod check` models a module environment.
struct LoaderEnvironment {
  /// LD_LIBRARY_PATH split at ':' and ';'. Empty: unset, the default of `wheelmod check`.
  std::vector<std::string> ld_library_path;
  std::optional<LdSoCache> cache;        // nullopt: like ld.so --inhibit-cache
  std::vector<std::string> system_dirs;  // ld.so --help: "(system search path)"
  /// glibc-hwcaps subdirectories searched ("x86-64-v4", ...), highest priority first.
  std::vector<std::string> glibc_hwcaps;
  /// Legacy hwcap subdirectories ("tls/x86_64", ...), after the glibc-hwcaps (glibc <= 2.36).
  std::vector<std::string> legacy_hwcap_subdirs;
  std::string lib = "lib";              // $LIB
  std::optional<std::string> platform;  // $PLATFORM (AT_PLATFORM; none on some kernels)
  /// Assumed when the root has no PT_INTERP (a library checked as if dlopen()ed); loaded first.
  std::string interpreter;
  std::filesystem::path working_directory = "/";  // for relative names and search-path entries
  /// Missing ones are "driver", not failures: the GPU driver provides them on compute nodes.
  std::vector<std::string> driver_libraries = {"libcuda.so.1", "libnvidia-ml.so.1"};
  std::vector<std::filesystem::path> allowed_roots;  // "ours": the prefix, the module tree
};

/// The ld.so facts in `ld.so --help` (system directories, glibc-hwcaps and legacy subdirectories
/// marked "searched") and `ld.so --list-diagnostics` (dl_dst_lib, dl_platform). With empty
/// `diagnostics` (glibc < 2.33) $LIB is derived from the first system directory, as glibc's build
/// does. Fields the text does not give keep their defaults.
LoaderEnvironment environment_from_ld_so(std::string_view help, std::string_view diagnostics);

enum class LdLibraryPath { unset, from_process };

/// This host: its ld.so (this program's PT_INTERP) run with --help and --list-diagnostics,
/// /etc/ld.so.cache (none when absent), the current directory; LD_LIBRARY_PATH with `from_process`.
LoaderEnvironment host_environment(LdLibraryPath ld_library_path = LdLibraryPath::unset);

/// Values of ld.so(8)'s dynamic string tokens for one object.
struct DstValues {
  std::optional<std::string> origin;  // directory of the object; nullopt: unknown
  std::string lib;
  std::optional<std::string> platform;
};

/// Expands $ORIGIN, $LIB, $PLATFORM and their ${...} forms; any other `$` ("$ORIGINX") stays.
/// nullopt when a token has no value: ld.so then drops that search-path entry or fails that name.
std::optional<std::string> expand_dst(std::string_view text, const DstValues& values);

// ---- Results ----

/// How a DT_NEEDED was satisfied (ld.so(8)'s steps).
enum class FoundBy {
  already_loaded,   // an object loaded before under this name or SONAME
  path,             // the name has a slash: opened as a path
  rpath,            // DT_RPATH of the requester or of one of its loaders
  ld_library_path,  // LD_LIBRARY_PATH
  runpath,          // the requester's DT_RUNPATH
  cache,            // /etc/ld.so.cache
  default_dirs,     // the system directories
};

enum class NeededStatus {
  found,
  missing,  // no candidate: ld.so fails with "cannot open shared object file"
  driver,   // missing, but one of LoaderEnvironment::driver_libraries
  invalid,  // the first candidate is no loadable ELF: ld.so fails there
};

/// Where a resolved file lies, for "from outside" reports.
enum class Placement {
  allowed,  // under one of LoaderEnvironment::allowed_roots
  system,   // under a system directory, or the program interpreter
  outside,  // anywhere else: the module would depend on it silently
};

struct NeededResult {
  std::string name;  // the DT_NEEDED entry as written
  NeededStatus status = NeededStatus::missing;
  FoundBy found_by = FoundBy::already_loaded;  // meaningful when found
  /// As ld.so spells it, unnormalised ("/p/bin/../lib/liba.so"); for already_loaded the object's
  /// own path; for a name with a slash the expanded name, found or not.
  std::string path;
  std::size_t object = 0;            // CheckResult::objects index, when found
  std::vector<std::string> skipped;  // candidates of another ELF class or machine
  /// Why invalid ("/x/libc.so: invalid ELF header") or not searched (a token without value).
  std::string problem;
};

struct LoadedObject {
  std::string path;                   // as ld.so spells it (see NeededResult::path)
  std::string loaded_as;              // the first name it was requested under (ldd's left column)
  std::optional<std::size_t> loader;  // index of the object whose DT_NEEDED loaded it
  Placement placement = Placement::outside;
  std::vector<NeededResult> needed;  // one per DT_NEEDED, in order
};

struct CheckResult {
  std::filesystem::path file;
  /// ld.so's breadth-first search list: [0] is `file` itself, then each object when first needed
  /// (the interpreter too). ldd prints the same objects, but the interpreter right behind its
  /// predecessor here and "not found" lines where requests failed.
  std::vector<LoadedObject> objects;
  std::string interpreter;           // PT_INTERP, or the assumed one for a library
  bool interpreter_missing = false;  // the kernel could not start the program
  std::string error;                 // `file` itself could not be read (tree walks)
};

/// A missing or invalid dependency (driver libraries aside), or an unusable interpreter or file.
bool has_failures(const CheckResult& result);

/// The loaded objects that are neither under an allowed root nor system.
std::vector<const LoadedObject*> from_outside(const CheckResult& result);

class FileSystemObjects;  // memoised probes of the real file system (loader.cpp)

/// Checks files against one environment, remembering what it read (each library read once).
class Loader {
 public:
  explicit Loader(LoaderEnvironment environment);
  ~Loader();
  Loader(const Loader&) = delete;
  Loader& operator=(const Loader&) = delete;

  /// Resolves everything `file` needs, transitively: an executable as the kernel starts it
  /// ($ORIGIN from its real path, like /proc/self/exe); a shared library as `ldd LIBRARY` does,
  /// as if dlopen()ed by path from a program without RPATH (its DT_RPATH heads the chain, $ORIGIN
  /// from `file` as given). nullopt when `file` is not ELF; IoError when it cannot be read.
  /// `loaded_before`: objects already loaded into the process (what `import torch` loaded, for a
  /// torch extension): a DT_NEEDED of their SONAME or path is met by them before any search, as
  /// ld.so matches loaded objects first; they join the result only when something needs them.
  std::optional<CheckResult> check(const std::filesystem::path& file,
                                   std::span<const std::string> loaded_before = {});

  /// Every ELF executable and shared library under `root`, in path order, each file once under
  /// its first non-symlink path; directory symlinks are not followed (no loops). Unreadable
  /// files get CheckResult::error.
  std::vector<CheckResult> check_tree(const std::filesystem::path& root);

  [[nodiscard]] const LoaderEnvironment& environment() const { return m_environment; }

 private:
  LoaderEnvironment m_environment;
  std::unique_ptr<FileSystemObjects> m_objects;
};

}  // namespace wheelmod::elf
