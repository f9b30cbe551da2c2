// Unpacking the checked members of a wheel on several threads: each thread
// opens the archive itself (libzip handles are not thread-safe), takes the
// largest remaining member, inflates it in 64 KiB chunks and writes and
// hashes each chunk as it comes, so memory stays flat for any size. The
// digest is compared with the wheel's RECORD when the member ends.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/reporter.hpp"
#include "hash/sha256.hpp"
#include "install_zip.hpp"
#include "wheel/installer.hpp"

namespace wheelmod::wheel {

/// How a member is written: plain files 0644, executables 0755, scripts
/// 0755 with their `#!python` line rewritten.
enum class FileRole { plain, executable, script };

struct ExtractJob {
  std::uint64_t index = 0;  // in the archive
  std::string member;       // its name, for messages
  std::filesystem::path destination;
  std::uint64_t size = 0;  // from the central directory (checked against RECORD)
  /// From RECORD; nothing for the signature files RECORD need not list.
  std::optional<hash::Sha256Digest> expected_sha256;
  FileRole role = FileRole::plain;
  /// Where its bytes lie, for a stored or deflated entry of an archive wheelmod has read itself
  /// (RawEntryReader); else libzip reads it.
  std::optional<EntryData> data;
};

/// What was written, for the installed RECORD (differs from the member for
/// scripts whose first line was rewritten).
struct ExtractedFile {
  hash::Sha256Digest sha256{};
  std::uint64_t size = 0;
};

struct ExtractSettings {
  unsigned threads = 1;
  std::string script_interpreter;
  TaskId task = 0;             // progress goes to this task, in bytes
  WrittenFiles written_files;  // taken early: after the largest member, handed over when written
};

/// Extracts every job (results in the order of `jobs`). Parent directories
/// must exist. The first failure stops the other threads and is rethrown:
/// IntegrityError for a digest, size or CRC that disagrees, IoError for the
/// file system.
std::vector<ExtractedFile> extract_members(const std::filesystem::path& wheel,
                                           std::span<const ExtractJob> jobs,
                                           const ExtractSettings& settings, Reporter& reporter);

/// Writes a generated file (a script wrapper, INSTALLER, RECORD) with the
/// mode of `role`, replacing what is there. Throws IoError.
ExtractedFile write_generated(const std::filesystem::path& path, std::string_view content,
                              FileRole role);

}  // namespace wheelmod::wheel
