// The mirror's static PEP 503 pages and the atomic, write-only-if-changed
// file writer they (and the manifest) go through.
#include "mirror/tree.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <system_error>
#include <tuple>
#include <utility>

#include <sys/stat.h>

#include "core/errors.hpp"
#include "core/unique_fd.hpp"
#include "index/url.hpp"

namespace wheelmod::mirror {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view k_write_hint =
    "check that the mirror directory is writable and its file system has space";

[[noreturn]] void throw_io(const fs::path& path, std::string_view what, int error_number) {
  throw IoError(path.string(), std::string(what) + ": " + std::strerror(error_number),
                std::string(k_write_hint));
}

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

// True when `file` is a regular file holding exactly `text`; false when it
// is absent or differs.
bool holds_exactly(const fs::path& file, std::string_view text) {
  const UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) {
    if (errno == ENOENT || errno == ENOTDIR) return false;
    throw_io(file, "cannot open to compare", errno);
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) throw_io(file, "cannot stat", errno);
  if (!S_ISREG(info.st_mode)) {
    throw IoError(file.string(), "exists and is not a regular file",
                  "move it away; the mirror writes a file there");
  }
  if (static_cast<std::uint64_t>(info.st_size) != text.size()) return false;

  std::array<char, 65536> buffer{};
  std::size_t compared = 0;
  for (;;) {
    const ssize_t got = ::read(fd.get(), buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw_io(file, "cannot read", errno);
    if (got == 0) return compared == text.size();
    const auto count = static_cast<std::size_t>(got);
    // More bytes than fstat said: the file grew meanwhile, so it differs.
    if (count > text.size() - compared) return false;
    if (text.substr(compared, count) != std::string_view(buffer.data(), count)) return false;
    compared += count;
  }
}

// A temporary file beside the target, removed unless it was renamed into
// place: no failure leaves one behind.
class Temporary {
 public:
  explicit Temporary(fs::path path) : m_path(std::move(path)) {}
  ~Temporary() {
    if (!m_committed) ::unlink(m_path.c_str());
  }
  Temporary(const Temporary&) = delete;
  Temporary& operator=(const Temporary&) = delete;
  [[nodiscard]] const fs::path& path() const { return m_path; }
  void commit() { m_committed = true; }

 private:
  fs::path m_path;
  bool m_committed = false;
};

void write_all(int fd, std::string_view text, const fs::path& path) {
  while (!text.empty()) {
    const ssize_t written = ::write(fd, text.data(), text.size());
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) throw_io(path, "cannot write", errno);
    // A short write (a signal, a full quota reached mid-way) is resumed;
    // the next write reports the error if there is one.
    text.remove_prefix(static_cast<std::size_t>(written));
  }
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
  return index::percent_encode_segment(filename);
}

bool write_if_changed(const fs::path& file, const std::string& text, Flush flush) {
  if (holds_exactly(file, text)) return false;

  const fs::path directory = file.has_parent_path() ? file.parent_path() : fs::path(".");
  std::error_code error;
  fs::create_directories(directory, error);
  if (error) throw_io(directory, "cannot create the directory", error.value());

  // Same directory, so the rename stays within one file system and is
  // atomic (rename(2)): a reader sees the old bytes or the new, never half.
  Temporary temporary(directory /
                      ("." + file.filename().string() + ".tmp-" + std::to_string(::getpid())));
  {
    const UniqueFd fd(
        ::open(temporary.path().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666));
    if (!fd) throw_io(temporary.path(), "cannot create", errno);
    write_all(fd.get(), text, temporary.path());
    // The data must be on disk before the rename publishes it, or a crash
    // could leave an empty file under the final name.
    if (flush == Flush::now && ::fsync(fd.get()) != 0)
      throw_io(temporary.path(), "cannot flush to disk", errno);
  }
  if (::rename(temporary.path().c_str(), file.c_str()) != 0) {
    const int error_number = errno;
    throw_io(file, "cannot rename " + temporary.path().filename().string() + " into place",
             error_number);
  }
  temporary.commit();
  if (flush == Flush::later) return true;

  // The rename itself is durable only once the directory is flushed.
  const UniqueFd parent(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!parent) throw_io(directory, "cannot open the directory to flush it", errno);
  // EINVAL: a file system that cannot flush directories (fsync(2)).
  if (::fsync(parent.get()) != 0 && errno != EINVAL) {
    throw_io(directory, "cannot flush the directory to disk", errno);
  }
  return true;
}

void flush_file_system(const fs::path& directory) {
  const UniqueFd fd(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd) throw_io(directory, "cannot open the directory to flush it", errno);
  if (::syncfs(fd.get()) != 0) throw_io(directory, "cannot flush the file system to disk", errno);
}

}  // namespace wheelmod::mirror
