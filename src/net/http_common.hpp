// Private to wheelmod_net: what the page fetcher (one easy handle) and the
// downloader (the multi interface) share — the libcurl options every
// transfer gets, how a libcurl failure is classified, and the HTTP facts
// both read (status wording, Content-Range, Retry-After).
#pragma once

#include <curl/curl.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/strings.hpp"
#include "curl_handle.hpp"
#include "net/connection.hpp"

namespace wheelmod::net {

/// The CA bundle to use: the option, else SSL_CERT_FILE, else
/// CURL_CA_BUNDLE, else "" (libcurl's default).
std::string ca_bundle(const std::string& cacert);

/// Options every wheelmod transfer gets: http(s) only, redirects, HTTP/2
/// over TLS when offered, verified TLS, a stall (not total) timeout,
/// proxies from the environment. `ca` must outlive the transfer.
void set_common_options(CurlHandle& handle, const ConnectionOptions& settings,
                        const std::string& ca);

/// True when a transfer of `url` can be multiplexed (HTTP/2 streams of
/// one connection): an https:// URL, whose TLS handshake may choose h2.
/// set_common_options never asks for HTTP/2 over clear text (h2c).
bool may_multiplex(std::string_view url);

/// libcurl's LOW_SPEED check averages over a window of several seconds,
/// so after a burst it notices a stall late; a transfer's progress
/// callback feeds this and aborts as soon as no byte has arrived for the
/// stall timeout.
class StallWatch {
 public:
  void restart() {
    m_last_bytes = 0;
    m_last_change = std::chrono::steady_clock::now();
    m_stalled = false;
  }
  /// True when the transfer must be aborted: `received` has not moved for `limit`.
  bool check(curl_off_t received, std::chrono::seconds limit) {
    const auto now = std::chrono::steady_clock::now();
    if (received != m_last_bytes) {
      m_last_bytes = received;
      m_last_change = now;
      return false;
    }
    m_stalled = m_stalled || now - m_last_change >= limit;
    return m_stalled;
  }
  [[nodiscard]] bool stalled() const { return m_stalled; }

 private:
  curl_off_t m_last_bytes = 0;
  std::chrono::steady_clock::time_point m_last_change = std::chrono::steady_clock::now();
  bool m_stalled = false;
};

/// "the transfer stalled: no data for N s"
std::string stall_text(std::chrono::seconds limit);

/// How a transfer that got no complete answer failed.
enum class TransportFailure {
  none,
  transient,  // connection refused or reset, timeout, stall, truncated body: retry
  permanent,  // certificate, bad URL, unsupported protocol: retrying cannot help
};
TransportFailure classify(CURLcode code);
/// What the user can do about `code`, or "" when nothing specific.
std::string hint_for(CURLcode code);

/// "HTTP 404 Not Found" (reason may be empty: HTTP/2 has none).
std::string describe_status(long status, std::string_view reason);
std::string hint_for_status(long status);
/// 429 and 5xx: the server may answer differently later.
inline bool is_retryable_status(long status) { return status == 429 || status >= 500; }

/// RFC 9110 §14.4 Content-Range: "bytes first-last/complete" ("*" = unknown).
struct ContentRange {
  std::uint64_t first = 0;
  std::uint64_t last = 0;
  std::optional<std::uint64_t> complete;
};
std::optional<ContentRange> parse_content_range(std::string_view value);
/// The N of an unsatisfied-range answer "bytes */N" (RFC 9110 §14.4).
std::optional<std::uint64_t> unsatisfied_range_length(std::string_view value);

/// RFC 9110 §10.2.3 Retry-After: delay-seconds or an HTTP-date (relative
/// to now); nullopt when absent or unreadable.
std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value);

/// How long to wait before retry number `failures` (1 = the first):
/// exponential backoff from `base`, scaled by `jitter` (pick it from
/// [0.5, 1.5) so that clients that failed together do not retry together),
/// at most 30 s; a server's Retry-After wins, up to 60 s.
std::chrono::milliseconds retry_delay(std::chrono::milliseconds base, unsigned failures,
                                      std::optional<std::chrono::milliseconds> retry_after,
                                      double jitter);

/// Whitespace trimmed from both ends; ASCII lower case.
std::string_view trim(std::string_view text);

/// One header line as libcurl's header callback hands it: a status line
/// ("HTTP/1.1 200 OK": a new response begins) or "name: value".
struct HeaderLine {
  bool status_line = false;
  std::string reason;  // status lines: "Not Found" ("" over HTTP/2)
  std::string name;    // lower case
  std::string value;
};
std::optional<HeaderLine> parse_header_line(std::string_view line);

}  // namespace wheelmod::net
