// Changing an ELF file's search path (DT_RPATH / DT_RUNPATH): in place when the new string fits
// in the old one's bytes (~1000x faster than a rewrite), else a grown .dynstr in a new segment or
// patchelf, on a copy renamed over the file. A file whose size changes is never truncated or
// rewritten in place: it may be mapped by a running process.
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
  /// The patchelf program (Debian package `patchelf`), for edits neither in place nor appended.
  std::string patchelf = "patchelf";
  bool dry_run = false;  // compute and return the edit, write nothing
  /// The file is private to the caller (a staging directory no process has mapped): a grown
  /// string table is appended to the file itself, not to a copy. An interrupted edit then leaves
  /// a broken file, acceptable only where it is thrown away.
  bool unmapped = false;
};

/// Sets `file`'s search path to `value` under `tag`, removing the other tag (a file ends with
/// exactly one). In place only when the new string plus its NUL fits and the old string's bytes
/// are used by no other dynamic entry (linkers merge string tails: a SONAME may end inside the
/// RPATH). Otherwise appended for a shared library (ET_DYN without PT_INTERP) whose dynamic array
/// has an entry to reuse (a search path or a spare DT_NULL slot); patchelf for the rest. Throws
/// IoError naming the file when it cannot be read or written, has no PT_DYNAMIC, or patchelf is
/// needed but missing (hint: apt-get install patchelf) or fails (its stderr in the error).
SearchPathEdit set_search_path(const std::filesystem::path& file, const std::string& value,
                               SearchPathTag tag, const EditOptions& options = {});

}  // namespace wheelmod::elf
