// Private to wheelmod_net: the conditional-request cache for index pages.
// An entry is `<dir>/<key>.body` (the page) and `<dir>/<key>.json` (URL,
// validators, content type, stored_at, body size and sha256), key =
// sha256(URL, Accept). Both are written atomically (temp file + rename);
// an entry that does not check out is treated as absent, never fatal: the
// cache only saves bytes, it is never the source of truth.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace wheelmod::net {

struct CachedPage {
  std::string body;
  std::string etag;           // ETag as the server sent it, quotes included
  std::string last_modified;  // Last-Modified as sent
  std::string content_type;
  std::string effective_url;
};

class PageCache {
 public:
  /// Entries live in `dir` (created on the first store).
  explicit PageCache(std::filesystem::path dir) : m_dir(std::move(dir)) {}

  /// The entry for (`url`, `accept`); nullopt when absent, unreadable or
  /// corrupt (size, digest or URL disagree).
  [[nodiscard]] std::optional<CachedPage> load(std::string_view url, std::string_view accept) const;

  /// Stores `page`; failures (read-only or full disk) are ignored.
  void store(std::string_view url, std::string_view accept, const CachedPage& page) const;

 private:
  [[nodiscard]] std::filesystem::path entry_path(std::string_view url,
                                                 std::string_view accept) const;
  std::filesystem::path m_dir;
};

}  // namespace wheelmod::net
