// Where a mirror keeps things under DIR:
//   files/<file>, files/<file>.metadata   every wheel once, with its PEP 658 core metadata
//   <variant>/index.html                  PEP 503 root of that variant (pip --index-url DIR/<variant>)
//   <variant>/<project>/index.html        project pages, linking ../../files/
//   wheelmod-mirror.json                  the manifest
//   .wheelmod/cache/, .wheelmod/conflicts/<sha256>/<file>   page cache; upstream's changed files
// so that `--index file:///DIR` (wheelmod appends the variant) and pip's
// `--index-url http://host/DIR/cu126/` both read it as download.pytorch.org.
#pragma once

#include <cstddef>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "mirror/manifest.hpp"

namespace wheelmod::mirror {

inline constexpr const char* k_lock_name = ".wheelmod-mirror.lock";

struct MirrorLayout {
  std::filesystem::path dest;
  [[nodiscard]] std::filesystem::path file(const std::string& filename) const;
  [[nodiscard]] std::filesystem::path metadata_file(const std::string& filename) const;
  [[nodiscard]] std::filesystem::path conflict_file(const std::string& filename,
                                                    const std::string& sha256) const;
  [[nodiscard]] std::filesystem::path http_cache() const;
};

/// Writes every variant's root and project pages from the manifest (only
/// the pages whose bytes change) and removes the project pages of
/// `managed` variants that no longer list anything. Returns how many pages
/// were written or removed.
std::size_t write_pages(const MirrorLayout& layout, const Manifest& manifest,
                        const std::set<std::string>& managed);

/// Links every stored wheel into `<sourcepath>/<letter>/<Name>/extensions/`
/// for each name (hard links, else symbolic ones); existing entries stay.
void link_sourcepath(const MirrorLayout& layout, const Manifest& manifest,
                     const std::filesystem::path& sourcepath, const std::vector<std::string>& names);

}  // namespace wheelmod::mirror
