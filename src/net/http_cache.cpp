#include "http_cache.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <system_error>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "core/json_depth.hpp"
#include "core/own_file.hpp"
#include "core/url.hpp"
#include "hash/sha256.hpp"

namespace wheelmod::net {

namespace {

constexpr int k_format = 1;

std::string sha256_hex(std::string_view bytes) {
  hash::Sha256 hasher;
  hasher.update(bytes);
  return hash::to_hex(hasher.finish());
}

// A cache entry that cannot be read is a miss, not a failure.
std::optional<std::string> read_entry(const std::filesystem::path& path) {
  try {
    return read_file_if_exists(path);
  } catch (const IoError&) {
    return std::nullopt;
  }
}

// Temp file in the same directory, then rename(2): a reader sees the old
// file or the new one, never half of one. The name is unique per process
// and call, so concurrent writers do not clobber each other's temp files.
bool write_atomically(const std::filesystem::path& path, std::string_view data) {
  static std::atomic<std::uint64_t> counter{0};
  auto temp = path;
  temp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  try {
    const UniqueFd out = open_own_file(temp, ExistingFile::replace, O_WRONLY);
    std::string_view rest = data;
    while (!rest.empty()) {
      const auto written = ::write(out.get(), rest.data(), rest.size());
      if (written < 0 && errno == EINTR) continue;
      if (written <= 0) throw IoError(temp.string(), "cannot write");
      rest.remove_prefix(static_cast<std::size_t>(written));
    }
  } catch (const IoError&) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    return false;
  }
  std::error_code error;
  std::filesystem::rename(temp, path, error);
  if (error) std::filesystem::remove(temp, error);
  return !error;
}

}  // namespace

std::filesystem::path PageCache::entry_path(std::string_view url, std::string_view accept) const {
  // The Accept header is part of the key: one URL can answer HTML or JSON
  // (PEP 691 content negotiation).
  std::string key(url);
  key += '\n';
  key += accept;
  return m_dir / sha256_hex(key);
}

std::optional<CachedPage> PageCache::load(std::string_view url, std::string_view accept) const {
  const auto base = entry_path(url, accept);
  const auto meta_text = read_entry(base.string() + ".json");
  if (!meta_text || json_too_deep(*meta_text)) return std::nullopt;  // not ours: refetched
  const auto meta = nlohmann::json::parse(*meta_text, nullptr, /*allow_exceptions=*/false);
  const auto field = [&](const char* name) {
    const auto it = meta.find(name);
    return it != meta.end() ? *it : nlohmann::json();
  };
  if (!meta.is_object() || field("format") != k_format || field("url") != mask_credentials(url) ||
      !field("size").is_number_unsigned() || !field("sha256").is_string())
    return std::nullopt;
  auto body = read_entry(base.string() + ".body");
  if (!body || body->size() != field("size").get<std::uint64_t>() ||
      sha256_hex(*body) != field("sha256").get<std::string>())
    return std::nullopt;
  const auto text = [&](const char* name) {
    const auto value = field(name);
    return value.is_string() ? value.get<std::string>() : std::string();
  };
  CachedPage page{.body = std::move(*body),
                  .etag = text("etag"),
                  .last_modified = text("last_modified"),
                  .content_type = text("content_type"),
                  .effective_url = text("effective_url")};
  if (page.etag.empty() && page.last_modified.empty()) return std::nullopt;
  return page;
}

void PageCache::store(std::string_view url, std::string_view accept, const CachedPage& page) const {
  // No secrets on disk: libcurl's effective URL keeps the request's
  // user:password. Unredirected, it is the URL load() is given again (kept
  // as ""); a redirected page that carries credentials is not cached.
  const bool redirected = page.effective_url != url;
  if (redirected && mask_credentials(page.effective_url) != page.effective_url) return;
  std::error_code error;
  std::filesystem::create_directories(m_dir, error);
  if (error) return;
  const auto base = entry_path(url, accept);
  const auto stored_at = std::chrono::duration_cast<std::chrono::seconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  const nlohmann::json meta = {
      {"format", k_format},
      {"url", mask_credentials(url)},  // no secrets on disk
      {"accept", accept},
      {"etag", page.etag},
      {"last_modified", page.last_modified},
      {"content_type", page.content_type},
      {"effective_url", redirected ? page.effective_url : std::string()},
      {"stored_at", stored_at},
      {"size", static_cast<std::uint64_t>(page.body.size())},
      {"sha256", sha256_hex(page.body)},
  };
  // Body first: the metadata names the body's digest, so a crash between
  // the two renames leaves an entry that load() rejects, never a wrong one.
  if (!write_atomically(base.string() + ".body", page.body)) return;
  write_atomically(base.string() + ".json", meta.dump(2) + "\n");
}

}  // namespace wheelmod::net
