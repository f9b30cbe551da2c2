// What the loader reads from an ELF file: class, machine, the dynamic section's SONAME, DT_NEEDED
// and search paths (DT_RPATH / DT_RUNPATH). Read with libelf (elfutils), kept out of this header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wheelmod::elf {

enum class ElfClass { elf32, elf64 };

/// Which dynamic tag holds a search path. ld.so(8): DT_RPATH is searched before LD_LIBRARY_PATH
/// and applies to the object's dependencies too; DT_RUNPATH after it, and only for the object's
/// own DT_NEEDED. When both are present DT_RPATH is ignored.
enum class SearchPathTag { rpath, runpath };

struct DynamicInfo {
  ElfClass elf_class = ElfClass::elf64;
  std::uint16_t machine = 0;  // e_machine (EM_X86_64 = 62, EM_AARCH64 = 183, ...)
  std::uint16_t type = 0;     // e_type (ET_DYN = 3, ET_EXEC = 2)
  bool little_endian = true;
  std::optional<std::string> interpreter;  // PT_INTERP, for executables
  std::optional<std::string> soname;       // DT_SONAME
  std::vector<std::string> needed;         // DT_NEEDED, in order
  std::optional<std::string> rpath;        // DT_RPATH as written ("$ORIGIN/../lib:/opt/x")
  std::optional<std::string> runpath;      // DT_RUNPATH as written
  /// DT_RPATH plus DT_RUNPATH entries: with exactly one, `rpath` or `runpath` is the whole of the
  /// file's search path (set_search_path's "unchanged" test, without opening the file again).
  std::size_t search_path_entries = 0;
};

/// True when the file starts with the ELF magic; false for anything unreadable or too short.
bool is_elf(const std::filesystem::path& file);

/// The same for the file open as `fd`: a regular file whose first bytes are the ELF magic.
bool is_elf(int fd);

/// Whether a file's name says it is Python source or bytecode, a header, or a text or image
/// format: nothing a loader maps. Tree walks (check, relink, swapcheck) pass such files over
/// without opening them: a torch wheel has ~8,000 .py files and headers beside a handful of
/// libraries. Names without a suffix, .so files and unknown suffixes are still opened.
bool is_text_by_name(std::string_view filename);

/// The dynamic facts of `file`; nullopt when it is not ELF, empty needed/paths without
/// PT_DYNAMIC. Throws IoError (exit 4) naming the file when it cannot be read or its ELF
/// structures are broken (truncated, offsets outside the file).
std::optional<DynamicInfo> read_dynamic(const std::filesystem::path& file);

/// The same for the file open as `fd` (read with pread(2); the descriptor's offset is untouched);
/// `file` names it in errors. For tree walks, which open each file once to look for the magic.
std::optional<DynamicInfo> read_dynamic(int fd, const std::filesystem::path& file);

/// Splits a search path at ':'; an empty entry (ld.so: the current directory) is kept as "".
std::vector<std::string> split_search_path(const std::string& value);

}  // namespace wheelmod::elf
