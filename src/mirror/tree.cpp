// The mirror's static PEP 503 pages and the atomic, write-only-if-changed
// file writer they (and the manifest) go through.
#include "tree.hpp"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <utility>

#include "core/errors.hpp"
#include "core/url.hpp"

namespace wheelmod::mirror {

namespace fs = std::filesystem;

namespace {

// Every value lands in a double-quoted attribute or in normal text, where
// HTML5 needs only `&` and `"` escaped (HTML §13.1.2.3); `<`, `>` and `'`
// are escaped too, for simpler parsers and in case the quoting changes.
std::string escape_html(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string page_head(std::string_view title) {
  // PEP 629: the repository version in a <meta>; 1.1 is PEP 700's, whose
  // additions concern JSON only, so an HTML 1.0 reader reads this page too.
  const std::string escaped = escape_html(title);
  std::string out =
      "<!DOCTYPE html>\n<html>\n  <head>\n    <meta charset=\"utf-8\">\n"
      "    <meta name=\"pypi:repository-version\" content=\"1.1\">\n";
  out += "    <title>" + escaped + "</title>\n  </head>\n  <body>\n";
  out += "    <h1>" + escaped + "</h1>\n";
  return out;
}

constexpr std::string_view k_page_tail = "  </body>\n</html>\n";

auto sort_key(const PageFile& file) {
  return std::tie(file.filename, file.href, file.sha256, file.metadata_sha256,
                  file.requires_python);
}

std::string anchor(const PageFile& file) {
  // PEP 503: the URL's fragment `#<hashname>=<hashvalue>`; the anchor text
  // is the file name, which must match the URL's last path segment.
  std::string href = file.href;
  if (!file.sha256.empty()) href += "#sha256=" + file.sha256;
  std::string out = "    <a href=\"" + escape_html(href) + "\"";
  // PEP 503: data-requires-python holds the specifier HTML-encoded
  // (`&gt;=3.9`); an empty one would mean "no constraint", so it is left out.
  if (file.requires_python && !file.requires_python->empty()) {
    out += " data-requires-python=\"" + escape_html(*file.requires_python) + "\"";
  }
  if (file.metadata_sha256) {
    // PEP 658 named the attribute data-dist-info-metadata; PEP 714 renamed
    // it data-core-metadata and lets servers keep the old name too, which
    // older clients read alone (pip 23.0 of Debian 12 among them).
    const std::string value =
        file.metadata_sha256->empty() ? std::string("true") : "sha256=" + *file.metadata_sha256;
    out += " data-core-metadata=\"" + escape_html(value) + "\"";
    out += " data-dist-info-metadata=\"" + escape_html(value) + "\"";
  }
  return out + ">" + escape_html(file.filename) + "</a><br>\n";
}

}  // namespace

std::string render_project_page(const std::string& project, std::vector<PageFile> files) {
  std::sort(files.begin(), files.end(),
            [](const PageFile& a, const PageFile& b) { return sort_key(a) < sort_key(b); });
  files.erase(
      std::unique(files.begin(), files.end(),
                  [](const PageFile& a, const PageFile& b) { return sort_key(a) == sort_key(b); }),
      files.end());
  std::string out = page_head("Links for " + project);
  for (const PageFile& file : files) out += anchor(file);
  out += k_page_tail;
  return out;
}

std::string render_root_page(std::vector<std::string> projects) {
  std::sort(projects.begin(), projects.end());
  projects.erase(std::unique(projects.begin(), projects.end()), projects.end());
  std::string out = page_head("Simple index");
  for (const std::string& project : projects) {
    // PEP 503: the root lists `<a href="/<project>/">`, each URL ending in
    // '/'; relative hrefs keep the tree servable under any prefix.
    out += "    <a href=\"" + escape_html(encode_filename(project)) + "/\">" +
           escape_html(project) + "</a><br>\n";
  }
  out += k_page_tail;
  return out;
}

std::string encode_filename(const std::string& filename) {
  return percent_encode_segment(filename);
}

}  // namespace wheelmod::mirror
