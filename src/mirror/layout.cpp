#include "mirror/layout.hpp"

#include <cctype>
#include <map>
#include <system_error>

#include "core/errors.hpp"
#include "mirror/tree.hpp"

namespace wheelmod::mirror {

namespace fs = std::filesystem;

fs::path MirrorLayout::file(const std::string& filename) const { return dest / "files" / filename; }

fs::path MirrorLayout::metadata_file(const std::string& filename) const {
  return dest / "files" / (filename + ".metadata");  // PEP 658: the file's URL + ".metadata"
}

fs::path MirrorLayout::conflict_file(const std::string& filename, const std::string& sha256) const {
  return dest / ".wheelmod" / "conflicts" / sha256 / filename;
}

fs::path MirrorLayout::http_cache() const { return dest / ".wheelmod" / "cache"; }

std::size_t write_pages(const MirrorLayout& layout, const Manifest& manifest,
                        const std::set<std::string>& managed) {
  // variant -> project -> files
  std::map<std::string, std::map<std::string, std::vector<PageFile>>> pages;
  for (const auto& [filename, entry] : manifest.files)
    for (const auto& variant : entry.variants)
      pages[variant][entry.project].push_back(
          PageFile{filename, "../../files/" + encode_filename(filename), entry.sha256,
                   entry.metadata_sha256, entry.requires_python});
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
  // A project a variant no longer lists loses its page (pip would still
  // find it otherwise); only directories this mirror wrote are touched.
  for (const auto& variant : managed) {
    std::error_code error;
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
  return written;
}

void link_sourcepath(const MirrorLayout& layout, const Manifest& manifest,
                     const fs::path& sourcepath, const std::vector<std::string>& names) {
  for (const auto& name : names) {
    // easybuild.framework.easyblock obtain_file: <sourcepath>/<first letter,
    // lower case>/<Name>/extensions/<file> for an extension's source.
    const auto directory = sourcepath /
                           std::string(1, static_cast<char>(std::tolower(
                                              static_cast<unsigned char>(name.front())))) /
                           name / "extensions";
    std::error_code error;
    fs::create_directories(directory, error);
    if (error) throw IoError(directory.string(), "cannot create: " + error.message());
    for (const auto& [filename, entry] : manifest.files) {
      const auto target = directory / filename;
      if (fs::exists(fs::symlink_status(target, error))) continue;
      fs::create_hard_link(layout.file(filename), target, error);
      if (error) {
        error.clear();
        fs::create_symlink(fs::absolute(layout.file(filename)), target, error);
      }
      if (error) throw IoError(target.string(), "cannot link the wheel here: " + error.message());
    }
  }
}

}  // namespace wheelmod::mirror
