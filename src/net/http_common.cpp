#include "http_common.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <ctime>

#include "core/strings.hpp"

namespace wheelmod::net {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

// CA bundle: the option (the operations layer fills it from --cacert, SSL_CERT_FILE or
// CURL_CA_BUNDLE), else libcurl's default.
std::string ca_bundle(const std::string& cacert) { return cacert; }

bool may_multiplex(std::string_view url) {
  constexpr std::string_view k_https = "https://";
  return url.size() >= k_https.size() && ascii_lower(url.substr(0, k_https.size())) == k_https;
}

void set_common_options(CurlHandle& handle, const ConnectionOptions& settings,
                        const std::string& ca) {
  handle.set(CURLOPT_PROTOCOLS_STR, "http,https", "CURLOPT_PROTOCOLS_STR");
  handle.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https", "CURLOPT_REDIR_PROTOCOLS_STR");
  handle.set(CURLOPT_FOLLOWLOCATION, 1L, "CURLOPT_FOLLOWLOCATION");
  handle.set(CURLOPT_MAXREDIRS, 10L, "CURLOPT_MAXREDIRS");
  // HTTP/2 when TLS's ALPN offers it, HTTP/1.1 otherwise and always over
  // clear text (https://curl.se/libcurl/c/CURLOPT_HTTP_VERSION.html):
  // site mirrors behind plain nginx get HTTP/1.1, one connection per
  // transfer (see may_multiplex).
  handle.set(CURLOPT_HTTP_VERSION, long{CURL_HTTP_VERSION_2TLS}, "CURLOPT_HTTP_VERSION");
  handle.set(CURLOPT_USERAGENT, settings.user_agent.c_str(), "CURLOPT_USERAGENT");
  handle.set(CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(settings.connect_timeout.count() * 1000),
             "CURLOPT_CONNECTTIMEOUT_MS");
  // A stall timeout, not a total one: a 2 GB wheel on a slow link is fine
  // as long as bytes keep arriving. (Callers add a sharper check of their
  // own: libcurl averages this one over a window.)
  handle.set(CURLOPT_LOW_SPEED_LIMIT, 1L, "CURLOPT_LOW_SPEED_LIMIT");
  handle.set(CURLOPT_LOW_SPEED_TIME, static_cast<long>(settings.stall_timeout.count()),
             "CURLOPT_LOW_SPEED_TIME");
  // TLS is always verified. Proxies: nothing is set, so libcurl reads
  // http_proxy / https_proxy / no_proxy from the environment itself.
  handle.set(CURLOPT_SSL_VERIFYPEER, 1L, "CURLOPT_SSL_VERIFYPEER");
  handle.set(CURLOPT_SSL_VERIFYHOST, 2L, "CURLOPT_SSL_VERIFYHOST");
  if (!ca.empty()) handle.set(CURLOPT_CAINFO, ca.c_str(), "CURLOPT_CAINFO");
  // HTTP basic credentials for a host the URL gives none for: from the netrc file (the operations
  // layer names $NETRC's), else ~/.netrc, as pip (requests' get_netrc_auth) and
  // `curl --netrc-optional` read them; credentials in the URL win. libcurl sends them to that
  // host only, and not on to a host a redirect names (CURLOPT_UNRESTRICTED_AUTH stays off).
  handle.set(CURLOPT_NETRC, long{CURL_NETRC_OPTIONAL}, "CURLOPT_NETRC");
  if (!settings.netrc_file.empty())
    handle.set(CURLOPT_NETRC_FILE, settings.netrc_file.c_str(), "CURLOPT_NETRC_FILE");
  handle.set(CURLOPT_NOSIGNAL, 1L, "CURLOPT_NOSIGNAL");
  handle.set(CURLOPT_TCP_KEEPALIVE, 1L, "CURLOPT_TCP_KEEPALIVE");
}

TransportFailure classify(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_PARTIAL_FILE:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_BAD_CONTENT_ENCODING:
      return TransportFailure::transient;
    default:
      return TransportFailure::permanent;
  }
}

std::string hint_for(CURLcode code) {
  switch (code) {
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
      return "the server's TLS certificate could not be verified; if your site uses its own CA, "
             "point SSL_CERT_FILE (or --cacert) at its bundle";
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return "check the host name, the DNS, and the proxy variables (https_proxy, no_proxy)";
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
      return "check the URL; only http:// and https:// are fetched over the network";
    case CURLE_TOO_MANY_REDIRECTS:
      return "the server redirects in a loop; check the URL";
    default:
      return {};
  }
}

std::string stall_text(std::chrono::seconds limit) {
  return "the transfer stalled: no data for " + std::to_string(limit.count()) + " s";
}

std::string describe_status(long status, std::string_view reason) {
  std::string text = "HTTP " + std::to_string(status);
  if (!reason.empty()) text += " " + std::string(reason);
  return text;
}

std::string hint_for_status(long status) {
  if (status == 401 || status == 403)
    return "the server refused access or has no such file (download.pytorch.org answers 403 "
           "for missing files); check the URL and any credentials in it";
  if (status == 404) return "the server has no such file; the index page may be stale";
  if (is_retryable_status(status))
    return "the server is failing or limiting requests; try again later";
  return "check the URL";
}

namespace {

std::optional<std::uint64_t> parse_number(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<ContentRange> parse_content_range(std::string_view value) {
  if (!value.starts_with("bytes ")) return std::nullopt;
  value.remove_prefix(6);
  const auto dash = value.find('-');
  const auto slash = value.find('/');
  if (dash == std::string_view::npos || slash == std::string_view::npos || dash > slash)
    return std::nullopt;
  const auto first = parse_number(value.substr(0, dash));
  const auto last = parse_number(value.substr(dash + 1, slash - dash - 1));
  if (!first || !last || *last < *first) return std::nullopt;
  ContentRange range{.first = *first, .last = *last, .complete = std::nullopt};
  if (value.substr(slash + 1) != "*") {
    range.complete = parse_number(value.substr(slash + 1));
    if (!range.complete || *range.complete <= *last) return std::nullopt;
  }
  return range;
}

std::optional<std::uint64_t> unsatisfied_range_length(std::string_view value) {
  if (!value.starts_with("bytes */")) return std::nullopt;
  return parse_number(value.substr(8));
}

std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value) {
  value = trim(value);
  if (value.empty()) return std::nullopt;
  std::uint64_t seconds = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (error == std::errc{} && end == value.data() + value.size())
    return std::chrono::milliseconds(std::min<std::uint64_t>(seconds, 24 * 3600) * 1000);
  const std::string date(value);
  const std::time_t when = curl_getdate(date.c_str(), nullptr);
  if (when < 0) return std::nullopt;
  const std::time_t now = std::time(nullptr);
  return std::chrono::milliseconds(when > now ? (when - now) * 1000 : 0);
}

std::chrono::milliseconds retry_delay(std::chrono::milliseconds base, unsigned failures,
                                      std::optional<std::chrono::milliseconds> retry_after,
                                      double jitter) {
  // Retry-After can ask for anything; beyond a minute a retry is not worth the wait.
  constexpr std::chrono::milliseconds k_max_retry_after{60'000};
  constexpr std::chrono::milliseconds k_max_backoff{30'000};
  if (retry_after) return std::min(*retry_after, k_max_retry_after);
  const double scaled =
      static_cast<double>(base.count()) *
      static_cast<double>(1ULL << std::min(failures == 0 ? 0U : failures - 1, 20U)) * jitter;
  return std::min(std::chrono::milliseconds(static_cast<std::int64_t>(scaled)), k_max_backoff);
}

std::optional<HeaderLine> parse_header_line(std::string_view line) {
  line = trim(line);
  if (line.starts_with("HTTP/")) {
    HeaderLine parsed{.status_line = true, .reason = {}, .name = {}, .value = {}};
    const auto first = line.find(' ');
    const auto second = first == std::string_view::npos ? first : line.find(' ', first + 1);
    if (second != std::string_view::npos) parsed.reason = std::string(trim(line.substr(second)));
    return parsed;
  }
  const auto colon = line.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  return HeaderLine{.status_line = false,
                    .reason = {},
                    .name = ascii_lower(trim(line.substr(0, colon))),
                    .value = std::string(trim(line.substr(colon + 1)))};
}

}  // namespace wheelmod::net
