// Replacing a file atomically: a sibling temporary, written in full,
// flushed, renamed over the target (rename(2): a reader sees the old bytes
// or the new, never half), and the directory flushed — and nothing at all
// when the file already holds those bytes, so an unchanged run rewrites
// nothing. No failure leaves the temporary behind.
#pragma once

#include <filesystem>
#include <string>

namespace wheelmod {

/// With Flush::later the fsyncs are left to one flush_file_system() of the
/// whole batch before whatever commits it (hundreds of small files).
enum class Flush { now, later };

/// Writes `text` to `file` atomically, creating directories; returns false,
/// writing nothing, when the file already holds exactly these bytes.
/// Throws IoError naming the file (and strerror) on failure.
bool write_if_changed(const std::filesystem::path& file, const std::string& text,
                      Flush flush = Flush::now);

/// syncfs(2) of the file system holding `directory`: everything written
/// there so far is on disk when it returns.
void flush_file_system(const std::filesystem::path& directory);

}  // namespace wheelmod
