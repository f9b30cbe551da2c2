#include "file_transport.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <string>

#include <sys/stat.h>

#include "core/errors.hpp"
#include "core/strings.hpp"
#include "core/url.hpp"

namespace wheelmod::net {

namespace {

std::string content_type_of(const std::filesystem::path& path) {
  const auto extension = path.extension().string();
  if (extension == ".html" || extension == ".htm") return "text/html";
  if (extension == ".json") return "application/json";
  return "application/octet-stream";
}

struct FileDescriptor {
  int fd = -1;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

[[noreturn]] void fail(std::string_view url, const std::string& what, int error) {
  throw IoError(mask_credentials(url), what + ": " + std::strerror(error),
                error == ENOENT ? "check the path" : "check the file's permissions");
}

// pread(2) until `length` bytes or the end of the file.
std::string read_at(int fd, std::uint64_t offset, std::uint64_t length, std::string_view url) {
  std::string out(static_cast<std::size_t>(length), '\0');
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n =
        ::pread(fd, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(url, "cannot read", errno);
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  out.resize(done);
  return out;
}

}  // namespace

std::optional<std::filesystem::path> local_path_of(std::string_view url) {
  const Url parsed{std::string(url)};
  if (parsed.is_http() && parsed.has_authority()) return std::nullopt;
  if (parsed.scheme() == "file") {
    // RFC 8089 §2: file://host/path; only the local host is ours to read.
    const auto authority = parsed.authority();
    if (!authority.empty() && !istarts_with(authority, "localhost"))
      throw IoError(parsed.masked(), "file URLs on another host are not supported",
                    "mount the directory and use a local path");
    const auto path = parsed.path();
    return std::filesystem::path(
        percent_decode(path.empty() && parsed.has_authority() ? std::string_view("/") : path));
  }
  if (parsed.has_authority())
    throw IoError(parsed.masked(), "unsupported URL scheme '" + parsed.scheme() + "'",
                  "use an http://, https:// or file:// URL, or a path");
  return std::filesystem::path(url);
}

std::optional<Response> read_local(const std::filesystem::path& path, std::string_view url,
                                   LocalTarget target) {
  auto file_path = path;
  if (target == LocalTarget::page) {
    std::error_code error;
    // A static web server answers a directory URL with its index.html.
    if (url.ends_with('/') || std::filesystem::is_directory(path, error)) file_path /= "index.html";
  }
  const FileDescriptor file{::open(file_path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
    fail(url, "cannot open " + file_path.string(), errno);
  }
  struct stat info {};
  if (::fstat(file.fd, &info) != 0) fail(url, "cannot stat " + file_path.string(), errno);
  if (S_ISDIR(info.st_mode)) fail(url, file_path.string() + " is a directory", EISDIR);
  Response response;
  response.body = read_at(file.fd, 0, static_cast<std::uint64_t>(info.st_size), url);
  response.content_type = content_type_of(file_path);
  response.effective_url = std::string(url);
  response.total_size = response.body.size();
  return response;
}

Response read_local_range(const std::filesystem::path& path, std::string_view url,
                          std::int64_t offset, std::uint64_t length) {
  const FileDescriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) fail(url, "cannot open " + path.string(), errno);
  struct stat info {};
  if (::fstat(file.fd, &info) != 0) fail(url, "cannot stat " + path.string(), errno);
  const auto size = static_cast<std::uint64_t>(info.st_size);
  std::uint64_t start = 0;
  if (offset < 0) {
    const auto suffix = static_cast<std::uint64_t>(-(offset + 1)) + 1;
    start = suffix < size ? size - suffix : 0;
    length = size - start;
  } else {
    start = static_cast<std::uint64_t>(offset);
    if (start >= size)
      throw IoError(mask_credentials(url),
                    "byte range starting at " + std::to_string(start) +
                        " is past the end of the file (" + std::to_string(size) + " bytes)",
                    "the file may have changed while it was read; run again");
    length = std::min(length, size - start);
  }
  Response response;
  response.status = 206;
  response.body = read_at(file.fd, start, length, url);
  response.content_type = content_type_of(path);
  response.effective_url = std::string(url);
  response.total_size = size;
  return response;
}

}  // namespace wheelmod::net
