#include "part_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <span>
#include <system_error>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "core/json_depth.hpp"
#include "core/own_file.hpp"
#include "core/unique_fd.hpp"
#include "core/url.hpp"
#include "net/download.hpp"

namespace wheelmod::net {

namespace fs = std::filesystem;

namespace {

// The names of a download's working files beside its destination, and of the directory's lock:
// known here only; others ask classify_download_entry.
constexpr std::string_view k_part_suffix = ".part";
constexpr std::string_view k_resume_suffix = ".part.json";
constexpr std::string_view k_lock_name = ".wheelmod-fetch.lock";

}  // namespace

namespace {

[[noreturn]] void fail(const fs::path& path, const std::string& what, int error) {
  throw IoError(path.string(), what + ": " + std::strerror(error),
                error == ENOSPC ? "free some space on that file system, or choose another --dest"
                                : "check the directory's permissions");
}

fs::path with_suffix(const fs::path& path, std::string_view suffix) {
  fs::path out = path;
  out += suffix;
  return out;
}

}  // namespace

fs::path part_path(const fs::path& destination) {
  return with_suffix(destination, std::string(k_part_suffix));
}

fs::path resume_info_path(const fs::path& destination) {
  return with_suffix(destination, std::string(k_resume_suffix));
}

DirectoryLock lock_download_directory(const fs::path& directory,
                                      const std::function<void(const std::string&)>& on_wait) {
  return DirectoryLock::acquire(directory, std::string(k_lock_name), on_wait);
}

DownloadDirectoryEntry classify_download_entry(std::string_view file_name) {
  if (file_name == k_lock_name) return {DownloadDirectoryEntry::Kind::lock, std::string(file_name)};
  for (const auto suffix : {k_resume_suffix, k_part_suffix})
    if (file_name.size() > suffix.size() && file_name.ends_with(suffix))
      return {DownloadDirectoryEntry::Kind::partial,
              std::string(file_name.substr(0, file_name.size() - suffix.size()))};
  return {DownloadDirectoryEntry::Kind::other, std::string(file_name)};
}

fs::path temporary_beside(const fs::path& path) {
  static std::atomic<unsigned> counter{0};
  return path.parent_path() / ("." + path.filename().string() + ".tmp-" +
                               std::to_string(::getpid()) + "-" + std::to_string(counter++));
}

std::optional<LeftoverPart> find_leftover(const fs::path& destination) {
  std::error_code error;
  const auto bytes = fs::file_size(part_path(destination), error);
  if (error) return std::nullopt;
  std::optional<std::string> text;
  try {
    text = read_file_if_exists(resume_info_path(destination));
  } catch (const IoError&) {
  }
  if (!text || json_too_deep(*text)) return std::nullopt;
  // A sidecar that does not parse (or cannot be read) is treated as absent:
  // the part is then downloaded again rather than trusted.
  const auto document = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!document.is_object() || !document.contains("url") || !document["url"].is_string() ||
      !document.contains("validator") || !document["validator"].is_string())
    return std::nullopt;
  LeftoverPart leftover;
  leftover.info.url = document["url"].get<std::string>();
  leftover.info.validator = document["validator"].get<std::string>();
  if (document.contains("size") && document["size"].is_number_unsigned())
    leftover.info.size = document["size"].get<std::uint64_t>();
  leftover.bytes = bytes;
  return leftover;
}

void write_resume_info(const fs::path& destination, const ResumeInfo& info) {
  // Masked: the sidecar lives in the user's --dest (download.cpp compares masked URLs).
  nlohmann::json document{{"url", mask_credentials(info.url)}, {"validator", info.validator}};
  document["size"] = info.size ? nlohmann::json(*info.size) : nlohmann::json(nullptr);
  const auto final_path = resume_info_path(destination);
  const auto temporary = temporary_beside(final_path);
  {
    const UniqueFd out = open_own_file(temporary, ExistingFile::replace, O_WRONLY);
    const auto text = document.dump() + '\n';
    if (::write(out.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()))
      fail(temporary, "cannot write", errno);
  }
  std::error_code error;
  fs::rename(temporary, final_path, error);
  if (error) {
    const int code = error.value();
    fs::remove(temporary, error);
    fail(final_path, "cannot write", code);
  }
}

void remove_part(const fs::path& destination) {
  std::error_code ignored;
  fs::remove(part_path(destination), ignored);
  fs::remove(resume_info_path(destination), ignored);
}

void commit_part(const fs::path& destination) {
  if (::rename(part_path(destination).c_str(), destination.c_str()) != 0)
    fail(destination, "cannot rename the verified .part into place", errno);
  std::error_code ignored;
  fs::remove(resume_info_path(destination), ignored);
}

hash::FileDigest copy_hashing(const fs::path& from, const fs::path& to) {
  const UniqueFd in(::open(from.c_str(), O_RDONLY | O_CLOEXEC));
  if (!in) fail(from, "cannot open", errno);
  const UniqueFd out = open_own_file(to, ExistingFile::replace, O_WRONLY);
  std::vector<std::uint8_t> block(256 * 1024);
  hash::Sha256 hasher;
  hash::FileDigest digest;
  for (;;) {
    const ssize_t n = ::read(in.get(), block.data(), block.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(from, "cannot read", errno);
    if (n == 0) break;
    const auto chunk = std::span(block.data(), static_cast<std::size_t>(n));
    hasher.update(chunk);
    for (std::size_t done = 0; done < chunk.size();) {
      const ssize_t w = ::write(out.get(), chunk.data() + done, chunk.size() - done);
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) fail(to, "cannot write", errno);
      done += static_cast<std::size_t>(w);
    }
    digest.size += chunk.size();
  }
  digest.sha256 = hasher.finish();
  return digest;
}

}  // namespace wheelmod::net
