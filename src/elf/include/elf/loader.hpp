// A static model of ld.so's library search (ld.so(8), "If a shared object
// dependency does not contain a slash ..."), for `wheelmod check`: which
// file each DT_NEEDED of an object resolves to, in glibc's breadth-first
// loading order, without loading anything.
//
// What is modelled (glibc 2.36, elf/dl-load.c _dl_map_object and
// elf/dl-deps.c _dl_map_object_deps): an object already loaded satisfies a
// request for its SONAME or for a name it was loaded under; a name with a
// slash is a path; otherwise DT_RPATH of the requesting object and of its
// loaders up to the root (only when the requester has no DT_RUNPATH; an
// object with DT_RUNPATH has no DT_RPATH at all), LD_LIBRARY_PATH, the
// requester's own DT_RUNPATH, /etc/ld.so.cache, the system directories. Each
// directory is tried with its glibc-hwcaps and legacy hwcap subdirectories
// first. A candidate of another ELF class or machine is skipped; a file
// that is no loadable ELF stops the search (ld.so fails there).
// Not modelled: LD_PRELOAD, DF_1_NODEFLIB (-z nodefaultlib), secure-
// execution mode, DT_AUXILIARY / DT_FILTER, the kernel-version ABI note.
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
  /// Set for entries from DIR/glibc-hwcaps/SUBDIR ("x86-64-v3").
  std::optional<std::string> glibc_hwcaps;
};

struct LdSoCache {
  std::vector<LdSoCacheEntry> entries;  // file order (the order `ldconfig -p` prints)
  std::string generator;  // "ldconfig (GNU libc) stable release version 2.36"; may be empty

  /// The path ld.so takes from the cache for `name` when loading for an
  /// object of `elf_class` / `machine`: the best entry of an active
  /// glibc-hwcaps subdirectory (`glibc_hwcaps`, highest priority first),
  /// else the first plain entry. nullopt when none fits, or when the ABI
  /// is one whose cache flags are not modelled (then ld.so's step 4 is
  /// skipped rather than guessed).
  [[nodiscard]] std::optional<std::string> lookup(std::string_view name, ElfClass elf_class,
                                                  std::uint16_t machine,
                                                  std::span<const std::string> glibc_hwcaps) const;
};

/// Parses the bytes of an ld.so.cache: the new format alone (glibc >= 2.32
/// default) or after the old "ld.so-1.7.0" table (ldconfig -c compat, the
/// default before 2.32). The error says what is wrong and where.
std::expected<LdSoCache, std::string> parse_ld_so_cache(std::span<const std::byte> bytes);

/// Reads and parses `file`. Throws IoError naming it when it cannot be
/// read or is not a cache ldconfig wrote.
LdSoCache read_ld_so_cache(const std::filesystem::path& file);

// ---- What the loader's host is like ----

/// The values ld.so would use. Injectable: `wheelmod check` models a
/// module environment, not necessarily the current process.
struct LoaderEnvironment {
  /// LD_LIBRARY_PATH entries (split at ':' and ';'), searched after the
  /// RPATH chain. Empty: unset, the default of `wheelmod check`.
  std::vector<std::string> ld_library_path;
  std::optional<LdSoCache> cache;        // nullopt: like ld.so --inhibit-cache
  std::vector<std::string> system_dirs;  // ld.so --help: "(system search path)"
  /// glibc-hwcaps subdirectories searched, highest priority first
  /// ("x86-64-v4", ...); DIR/glibc-hwcaps/NAME is tried before DIR.
  std::vector<std::string> glibc_hwcaps;
  /// Legacy hwcap subdirectories ("tls/x86_64", "x86_64", ...), tried
  /// after the glibc-hwcaps ones and before DIR itself (glibc <= 2.36).
  std::vector<std::string> legacy_hwcap_subdirs;
  std::string lib = "lib";              // $LIB
  std::optional<std::string> platform;  // $PLATFORM (AT_PLATFORM; none on some kernels)
  /// The program interpreter assumed when the root has no PT_INTERP (a
  /// library checked as if dlopen()ed); it is loaded before everything.
  std::string interpreter;
  /// Where relative names and relative search-path entries are opened.
  std::filesystem::path working_directory = "/";
  /// Missing ones are "driver", not failures: the GPU driver provides
  /// them on compute nodes, login nodes lack them.
  std::vector<std::string> driver_libraries = {"libcuda.so.1", "libnvidia-ml.so.1"};
  /// Directories whose libraries are "ours" (the prefix, the module tree).
  std::vector<std::filesystem::path> allowed_roots;
};

/// The ld.so facts in the text of `ld.so --help` (system directories,
/// glibc-hwcaps and legacy subdirectories marked "searched") and of
/// `ld.so --list-diagnostics` (dl_dst_lib, dl_platform); `diagnostics` may
/// be empty (glibc < 2.33), then $LIB is derived from the first system
/// directory, as glibc's build does. Fields not given by the text keep
/// their defaults.
LoaderEnvironment environment_from_ld_so(std::string_view help, std::string_view diagnostics);

enum class LdLibraryPath { unset, from_process };

/// This host: runs its ld.so (this program's PT_INTERP) with --help and
/// --list-diagnostics, reads /etc/ld.so.cache (none when absent), takes
/// the current directory, and LD_LIBRARY_PATH only with `from_process`.
LoaderEnvironment host_environment(LdLibraryPath ld_library_path = LdLibraryPath::unset);

/// Values of ld.so(8)'s dynamic string tokens for one object.
struct DstValues {
  std::optional<std::string> origin;  // directory of the object; nullopt: unknown
  std::string lib;
  std::optional<std::string> platform;
};

/// Expands $ORIGIN, $LIB, $PLATFORM and their ${...} forms in `text`. A
/// `$` not starting one of these (or followed by more identifier
/// characters: "$ORIGINX") stays as it is. nullopt when a token has no
/// value: ld.so then drops that search-path entry or fails that name.
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
  /// The file as ld.so spells it (search dir + subdir + name, unnormalised:
  /// "/p/bin/../lib/liba.so"); for already_loaded the object's own path;
  /// for a name with a slash the expanded name, found or not.
  std::string path;
  std::size_t object = 0;  // CheckResult::objects index, when found
  /// Candidates passed over because of their ELF class or machine.
  std::vector<std::string> skipped;
  /// Why invalid ("/x/libc.so: invalid ELF header"), or why the name could
  /// not be searched (a token without value); else empty.
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
  /// ld.so's breadth-first search list: [0] is `file` itself, then each
  /// object when first needed (the interpreter too). ldd prints the same
  /// objects, but the interpreter right behind its predecessor here and
  /// "not found" lines where requests failed.
  std::vector<LoadedObject> objects;
  std::string interpreter;           // PT_INTERP, or the assumed one for a library
  bool interpreter_missing = false;  // the kernel could not start the program
  std::string error;                 // `file` itself could not be read (tree walks)
};

/// True when some object has a missing or invalid dependency (driver
/// libraries do not count), or the interpreter or the file is unusable.
bool has_failures(const CheckResult& result);

/// The loaded objects that are neither under an allowed root nor system.
std::vector<const LoadedObject*> from_outside(const CheckResult& result);

class FileSystemObjects;  // memoised probes of the real file system (loader.cpp)

/// Checks files against one environment; remembers what it read, so that
/// checking a whole prefix reads each library once.
class Loader {
 public:
  explicit Loader(LoaderEnvironment environment);
  ~Loader();
  Loader(const Loader&) = delete;
  Loader& operator=(const Loader&) = delete;

  /// Resolves everything `file` needs, transitively. An executable is
  /// resolved as the kernel starts it ($ORIGIN is the directory of its
  /// real path, like /proc/self/exe). A shared library is resolved as if
  /// dlopen()ed by path from a program without RPATH: its own DT_RPATH
  /// then heads the chain and $ORIGIN is the directory of `file` as
  /// given — what `ldd LIBRARY` does too. nullopt when `file` is not ELF.
  /// Throws IoError when `file` cannot be read.
  std::optional<CheckResult> check(const std::filesystem::path& file);

  /// Every ELF executable and shared library under `root` (other files
  /// skipped), in path order. A file reached through several symlinks is
  /// checked once, under its first non-symlink path; directory symlinks
  /// are not followed (no loops). Unreadable files get CheckResult::error.
  std::vector<CheckResult> check_tree(const std::filesystem::path& root);

  [[nodiscard]] const LoaderEnvironment& environment() const { return m_environment; }

 private:
  LoaderEnvironment m_environment;
  std::unique_ptr<FileSystemObjects> m_objects;
};

}  // namespace wheelmod::elf
