// The archive's structure read a second time, by wheelmod's own parser (zip_directory.hpp), and
// held against what libzip, which extracts the entries, lists. A wheel reviewed with the usual
// tools (pip's zipfile, unzip) must not install as something else, and must not inflate more
// bytes than it holds.
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include "install_zip.hpp"
#include "wheel/zip_directory.hpp"

namespace wheelmod::wheel {

/// Reads and checks the archive at `path` before libzip opens it: one end record, ending the file;
/// a central directory that ends where the end records begin and holds exactly its count of
/// entries; every entry's local header, data and descriptor inside the archive and sharing no
/// byte with another. Returns the entries; nullopt when the file has no end record at all (not a
/// zip, or cut short: libzip's open tells which). Throws IntegrityError naming the archive
/// (exit 5), IoError when it cannot be read.
std::optional<std::vector<ZipEntryInfo>> read_zip_layout(const std::filesystem::path& path);

/// libzip, which extracts, must list the same entries (names, sizes, order) as `layout`.
void check_same_entries(const std::filesystem::path& path, const std::vector<ZipEntryInfo>& layout,
                        const std::vector<ZipMember>& members);

}  // namespace wheelmod::wheel
