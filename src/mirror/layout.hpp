// Where a mirror keeps things under DIR:
//   files/<path>, files/<path>.metadata   every wheel once, with its PEP 658 core metadata;
//                                         <path> is its upstream path below the index root's
//                                         parent (whl/cu126/x.whl, whl/x.whl, packages/..):
//                                         two variants may serve different files under one
//                                         name (download.pytorch.org's aarch64 wheels)
//   <variant>/index.html                  PEP 503 root of that variant (pip --index-url
//                                         DIR/<variant>)
//   <variant>/<project>/index.html        project pages, linking ../../files/
//   index.html, <project>/index.html      the root: every project, each with the files of
//                                         every variant (download.pytorch.org's /whl/<project>/)
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

#include "manifest.hpp"

namespace wheelmod::mirror {

inline constexpr const char* k_lock_name = ".wheelmod-mirror.lock";

/// Where a file at `url` is kept below DIR/files: its path below the index
/// root's parent on the same host, percent-decoded ("whl/cu126/torch-2.6.0+cu126-….whl");
/// a file elsewhere goes under "ext/<host>/<path>". Never absolute, never "..".
std::string storage_path(const std::string& url, const std::string& index_root);

/// The file name alone ("torch-2.6.0+cu126-….whl").
std::string base_name(const std::string& stored_path);

struct MirrorLayout {
  std::filesystem::path dest;
  [[nodiscard]] std::filesystem::path file(const std::string& filename) const;
  [[nodiscard]] std::filesystem::path metadata_file(const std::string& filename) const;
  [[nodiscard]] std::filesystem::path conflict_file(const std::string& filename,
                                                    const std::string& sha256) const;
  [[nodiscard]] std::filesystem::path http_cache() const;
};

/// Writes every variant's root and project pages and the root's from the manifest (only the
/// pages whose bytes change), and removes the project pages of `managed` variants that no
/// longer list anything and the root pages of `managed_projects` no longer mirrored. Returns
/// how many pages were written or removed.
std::size_t write_pages(const MirrorLayout& layout, const Manifest& manifest,
                        const std::set<std::string>& managed,
                        const std::set<std::string>& managed_projects);

/// Two different stored files with one name: the first (in storage order) is in the sourcepath,
/// the other in `<sourcepath>/variants/<variant>/`, the tree of its first variant.
struct SourcepathClash {
  std::string file_name;
  std::string first_variant;
  std::string variant;
  std::filesystem::path variant_sourcepath;
};

/// Links every stored wheel into `<sourcepath>/<letter>/<Name>/extensions/`
/// for each name (hard links, else symbolic ones); existing entries stay. A file whose name a
/// different file already has there goes into its variant's tree instead (returned): EasyBuild
/// searches the directories of --sourcepath in order and takes the first file of that name
/// (easyblock.py obtain_file), so `--sourcepath <sourcepath>/variants/<variant>:<sourcepath>`
/// gives that variant's easyconfigs their own file.
std::vector<SourcepathClash> link_sourcepath(const MirrorLayout& layout, const Manifest& manifest,
                                             const std::filesystem::path& sourcepath,
                                             const std::vector<std::string>& names);

}  // namespace wheelmod::mirror
