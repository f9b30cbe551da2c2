// Changing an ELF file's search path (DT_RPATH / DT_RUNPATH): in place when
// the new string fits in the bytes of the old one, which is ~1000x faster
// than rewriting the file and needs no memory. When it does not fit, a
// shared library gets a grown .dynstr appended in a new segment of a copy
// (which then replaces it with rename(2)): a kernel copy plus a few pages.
// Programs, and layouts that route does not handle, go through `patchelf`
// on such a copy. A file is never truncated or rewritten in place when its
// size changes: it may be mapped by a running process.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "elf/elf_file.hpp"

namespace wheelmod::elf {

enum class EditMethod {
  unchanged,  // the file already had this path under this tag
  in_place,   // string bytes (and the tag) overwritten with pwrite(2)
  appended,   // a grown .dynstr appended in a new segment, on a copy renamed over the file
  patchelf,   // a grown .dynstr: patchelf on a copy, renamed over the file
};

struct SearchPathEdit {
  std::optional<std::string> old_value;  // the RPATH or RUNPATH before (nullopt: none)
  std::optional<SearchPathTag> old_tag;
  std::string new_value;
  SearchPathTag new_tag = SearchPathTag::rpath;
  EditMethod method = EditMethod::unchanged;
};

struct EditOptions {
  /// The patchelf program (Debian package `patchelf`), used only when the
  /// new path does not fit in the old one's bytes and the file is a program
  /// or a library the appending route does not handle.
  std::string patchelf = "patchelf";
  /// Compute and return the edit without writing anything.
  bool dry_run = false;
  /// The file is private to the caller (a staging directory no process
  /// has mapped): a grown string table is appended to the file itself
  /// instead of to a copy renamed over it. An interrupted edit then leaves
  /// a broken file, which is acceptable only where it is thrown away.
  bool unmapped = false;
};

/// Sets `file`'s search path to `value` under `tag` (the other tag is
/// removed: a file ends with exactly one of DT_RPATH / DT_RUNPATH).
/// In place only when the old string's bytes are used by no other dynamic
/// entry (linkers merge string tails: a SONAME may end inside the RPATH
/// string) and the new string plus its NUL fits. Otherwise appended for a
/// shared library (ET_DYN without PT_INTERP) whose dynamic array has an
/// entry to reuse (a search path, or a spare DT_NULL slot); patchelf for
/// the rest. Throws IoError naming the file when it cannot be read or
/// written, or when patchelf is needed but missing (hint: apt-get install
/// patchelf) or fails (its stderr in the error). A file without PT_DYNAMIC
/// is an IoError too.
SearchPathEdit set_search_path(const std::filesystem::path& file, const std::string& value,
                               SearchPathTag tag, const EditOptions& options = {});

}  // namespace wheelmod::elf
