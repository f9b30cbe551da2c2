// Getting bytes from index URLs: http(s) through libcurl (TLS verified,
// proxies from the environment, HTTP/2 when offered), file:// URLs and
// plain paths. Retries with backoff on connection errors, timeouts, 429
// and 5xx; a conditional-request cache for pages (ETag / Last-Modified).
// libcurl stays out of this header.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/reporter.hpp"
#include "net/connection.hpp"

namespace wheelmod::net {

struct FetcherOptions {
  /// HTTP page cache; empty = no cache. Bodies and validators are kept
  /// under `<cache_dir>/http/`.
  std::filesystem::path cache_dir;
  /// Attempts per request, the first included.
  unsigned attempts = 4;
  /// The most one get_page may take in all, retries and their waits
  /// included: the stall timeout never fires on a page that trickles a
  /// byte at a time, this does. get() and get_range() have none (they may
  /// read a whole wheel).
  std::chrono::seconds page_timeout{300};
  ConnectionOptions connection;
};

/// What one successful request gave.
struct Response {
  long status = 200;  // 200, 206, or 304-then-cache (reported as 200)
  std::string body;
  std::string content_type;   // lower case, parameters removed
  std::string effective_url;  // after redirects
  bool from_cache = false;    // the body came from the cache (a 304 or file cache hit)
  std::optional<std::uint64_t>
      total_size;  // whole resource size when known (Content-Range / Content-Length / file size)
};

/// What asking for a page gave: the page, or why there is none.
struct PageAnswer {
  std::optional<Response> page;
  /// When `page` is empty: "HTTP 404", "HTTP 403" or "no such file" (a local index).
  std::string absent;
};

/// Counters for tests and reports.
struct FetchStats {
  std::uint64_t requests = 0;      // network requests sent (retries included)
  std::uint64_t body_bytes = 0;    // body bytes received from the network
  std::uint64_t not_modified = 0;  // 304 answers
};

class Fetcher {
 public:
  explicit Fetcher(FetcherOptions options = {});
  ~Fetcher();
  Fetcher(const Fetcher&) = delete;
  Fetcher& operator=(const Fetcher&) = delete;

  /// GETs an index page with `accept` as the Accept header, through the
  /// cache. nullopt when the page does not exist: HTTP 404 or 403
  /// (download.pytorch.org answers 403 for a missing page), or no such file.
  /// Throws IoError (exit 4) naming the URL and the last cause after the
  /// retries are spent, or once options.page_timeout has passed.
  std::optional<Response> get_page(std::string_view url, std::string_view accept);
  /// get_page, saying what answered when there is no page (for errors that name each URL asked).
  PageAnswer ask_page(std::string_view url, std::string_view accept);

  /// GETs a whole resource (a .metadata file, a small wheel) without the
  /// page cache. Throws IoError, also for 403/404.
  Response get(std::string_view url);

  /// GETs `length` bytes at `offset` (HTTP Range). `offset` may be negative
  /// for the last -offset bytes (a suffix range, `bytes=-N`), with length
  /// ignored. A server that ignores Range (200) is answered correctly too:
  /// the slice is cut from the body. total_size is always set.
  Response get_range(std::string_view url, std::int64_t offset, std::uint64_t length);

  [[nodiscard]] const FetchStats& stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

/// libcurl and the libraries it was built with, as it reports itself at run time
/// ("libcurl/7.88.1 OpenSSL/3.0.15 zlib/1.2.13 ...").
std::string transfer_library_version();

}  // namespace wheelmod::net
