#include "layout.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <system_error>

#include "core/errors.hpp"
#include "core/strings.hpp"
#include "core/url.hpp"
#include "index_client/accelerator.hpp"
#include "tree.hpp"

namespace wheelmod::mirror {

namespace fs = std::filesystem;

fs::path MirrorLayout::file(const std::string& filename) const { return dest / "files" / filename; }

fs::path MirrorLayout::metadata_file(const std::string& filename) const {
  return dest / "files" / (filename + ".metadata");  // PEP 658: the file's URL + ".metadata"
}

fs::path MirrorLayout::conflict_file(const std::string& filename, const std::string& sha256) const {
  return dest / ".wheelmod" / "conflicts" / sha256 / base_name(filename);
}

namespace {

// "https://host:443/a/b" -> {"https://host:443", "/a/b"}; a plain path or
// file:///p -> {"file://", "/p"}.
std::pair<std::string, std::string> split_origin(std::string_view url) {
  const auto scheme = url.find("://");
  if (scheme == std::string_view::npos) return {"file://", std::string(url)};
  const auto path = url.find('/', scheme + 3);
  if (path == std::string_view::npos) return {std::string(url), "/"};
  return {std::string(url.substr(0, path)), std::string(url.substr(path))};
}

// Decoded segments without empty, "." or ".." ones.
std::string clean_path(std::string_view path) {
  std::string out;
  std::size_t start = 0;
  while (start <= path.size()) {
    const auto slash = std::min(path.find('/', start), path.size());
    const auto segment = percent_decode(path.substr(start, slash - start));
    if (!segment.empty() && segment != "." && segment != ".." &&
        segment.find('/') == std::string::npos)
      out += (out.empty() ? "" : "/") + segment;
    start = slash + 1;
  }
  return out;
}

}  // namespace

std::string storage_path(const std::string& url, const std::string& index_root) {
  const auto [origin, path] = split_origin(without_fragment(url));
  const auto [root_origin, root_path] = split_origin(index_root);
  std::string parent = root_path;
  while (!parent.empty() && parent.back() == '/') parent.pop_back();
  parent = parent.substr(0, parent.rfind('/') + 1);  // "/whl" -> "/", "/a/whl" -> "/a/"
  if (origin == root_origin && path.starts_with(parent) && path.find("/../") == std::string::npos)
    return clean_path(std::string_view(path).substr(parent.size()));
  const auto host = origin.substr(origin.find("://") + 3);
  return "ext/" + clean_path(host.empty() ? "local" : host) + "/" + clean_path(path);
}

std::string base_name(const std::string& stored_path) {
  return stored_path.substr(stored_path.rfind('/') + 1);
}

fs::path MirrorLayout::http_cache() const { return dest / ".wheelmod" / "cache"; }

namespace {

std::string encoded_path(const std::string& stored_path) {
  std::string out;
  std::size_t start = 0;
  for (;;) {
    const auto slash = stored_path.find('/', start);
    out += encode_filename(stored_path.substr(start, slash - start));
    if (slash == std::string::npos) return out;
    out += '/';
    start = slash + 1;
  }
}

// Whether `project` gets a page at DIR/<project>/: not where the mirror keeps other things
// (DIR/files/, a variant directory).
bool has_root_page(const std::string& project) {
  return project != "files" &&
         index_client::classify_directory(project) == index_client::DirectoryKind::other;
}

}  // namespace

std::size_t write_pages(const MirrorLayout& layout, const Manifest& manifest,
                        const std::set<std::string>& managed,
                        const std::set<std::string>& managed_projects) {
  // variant -> project -> files; and project -> files of every variant, for the root pages
  std::map<std::string, std::map<std::string, std::vector<PageFile>>> pages;
  std::map<std::string, std::vector<PageFile>> root_pages;
  for (const auto& [filename, entry] : manifest.files) {
    const PageFile file{base_name(filename), "../../files/" + encoded_path(filename), entry.sha256,
                        entry.metadata_sha256, entry.requires_python};
    for (const auto& variant : entry.variants) pages[variant][entry.project].push_back(file);
    if (has_root_page(entry.project)) {
      auto root_file = file;
      root_file.href = "../files/" + encoded_path(filename);
      root_pages[entry.project].push_back(std::move(root_file));
    }
  }
  std::size_t written = 0;
  for (auto& [variant, projects] : pages) {
    std::vector<std::string> names;
    for (auto& [project, files] : projects) {
      names.push_back(project);
      if (write_if_changed(layout.dest / variant / project / "index.html",
                           render_project_page(project, std::move(files))))
        ++written;
    }
    if (write_if_changed(layout.dest / variant / "index.html", render_root_page(names))) ++written;
  }
  // The root: download.pytorch.org's /whl/ and /whl/<project>/ (every variant's files on one
  // page), so that DIR is an index of its own for pip and uv as well as the variant directories,
  // and wheelmod reads the variants the mirror has from DIR/<project>/ instead of asking for each.
  std::vector<std::string> root_names;
  for (auto& [project, files] : root_pages) {
    root_names.push_back(project);
    if (write_if_changed(layout.dest / project / "index.html",
                         render_project_page(project, std::move(files))))
      ++written;
  }
  if (!root_names.empty() &&
      write_if_changed(layout.dest / "index.html", render_root_page(root_names)))
    ++written;
  // A project a variant no longer lists loses its page (pip would still
  // find it otherwise); only directories this mirror wrote are touched.
  std::error_code error;
  for (const auto& variant : managed) {
    for (const auto& entry : fs::directory_iterator(layout.dest / variant, error)) {
      const auto project = entry.path().filename().string();
      const auto it = pages.find(variant);
      if (!entry.is_directory() || (it != pages.end() && it->second.contains(project))) continue;
      if (fs::remove(entry.path() / "index.html", error)) ++written;
      fs::remove(entry.path(), error);  // only when empty
    }
    if (!pages.contains(variant) && fs::remove(layout.dest / variant / "index.html", error)) {
      ++written;
      fs::remove(layout.dest / variant, error);
    }
  }
  for (const auto& project : managed_projects) {
    if (root_pages.contains(project) || !has_root_page(project)) continue;
    if (fs::remove(layout.dest / project / "index.html", error)) ++written;
    fs::remove(layout.dest / project, error);  // only when empty
  }
  if (root_names.empty() && fs::remove(layout.dest / "index.html", error)) ++written;
  return written;
}

std::vector<SourcepathClash> link_sourcepath(const MirrorLayout& layout, const Manifest& manifest,
                                             const fs::path& sourcepath,
                                             const std::vector<std::string>& names) {
  // Which tree each stored file goes to: the shared one, unless a different file (another
  // sha256) of that name came first (manifest order, by storage path).
  std::map<std::string, const ManifestFile*> first_of_name;
  std::map<std::string, fs::path> tree_of;
  std::vector<SourcepathClash> clashes;
  for (const auto& [filename, entry] : manifest.files) {
    const auto [first, added] = first_of_name.try_emplace(base_name(filename), &entry);
    if (added || first->second->sha256 == entry.sha256 || entry.variants.empty()) {
      tree_of[filename] = sourcepath;
      continue;
    }
    const auto variant_tree = sourcepath / "variants" / entry.variants.front();
    tree_of[filename] = variant_tree;
    clashes.push_back({base_name(filename),
                       first->second->variants.empty() ? "" : first->second->variants.front(),
                       entry.variants.front(), variant_tree});
  }
  for (const auto& name : names) {
    // easybuild.framework.easyblock obtain_file: <sourcepath>/<first letter,
    // lower case>/<Name>/extensions/<file> for an extension's source.
    const auto below = fs::path(std::string(1, ascii_lower(name.front()))) / name / "extensions";
    std::error_code error;
    for (const auto& [filename, entry] : manifest.files) {
      const auto directory = tree_of.at(filename) / below;
      fs::create_directories(directory, error);
      if (error) throw IoError(directory.string(), "cannot create: " + error.message());
      const auto target = directory / base_name(filename);
      if (fs::exists(fs::symlink_status(target, error))) continue;
      fs::create_hard_link(layout.file(filename), target, error);
      if (error) {
        error.clear();
        fs::create_symlink(fs::absolute(layout.file(filename)), target, error);
      }
      if (error) throw IoError(target.string(), "cannot link the wheel here: " + error.message());
    }
  }
  return clashes;
}

}  // namespace wheelmod::mirror
