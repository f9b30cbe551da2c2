#include "net/http_transport.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <ctime>

#include "net/curl_handle.hpp"

namespace wheelmod::net {

namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::ranges::transform(out, out.begin(),
                         [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// CA bundle: the option, else the variables other tools use for it
// (OpenSSL's SSL_CERT_FILE, curl's CURL_CA_BUNDLE), else libcurl's default.
std::string ca_bundle(const FetcherOptions& options) {
  if (!options.cacert.empty()) return options.cacert;
  for (const char* name : {"SSL_CERT_FILE", "CURL_CA_BUNDLE"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0') return value;
  }
  return {};
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

}  // namespace

std::optional<std::string_view> HttpResult::header(std::string_view name) const {
  for (const auto& [key, value] : headers)
    if (key == name) return std::string_view(value);
  return std::nullopt;
}

struct HttpTransport::State {
  explicit State(const FetcherOptions& o) : options(o), ca(ca_bundle(o)) {}
  const FetcherOptions& options;
  CurlHandle handle;
  std::string ca;
  char error[CURL_ERROR_SIZE] = {};
  // Stall detection: when the byte count last moved.
  curl_off_t last_bytes = 0;
  std::chrono::steady_clock::time_point last_change;
  bool stalled = false;
};

HttpTransport::HttpTransport(const FetcherOptions& options)
    : m_state(std::make_unique<State>(options)) {}

HttpTransport::~HttpTransport() = default;

namespace {

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  static_cast<HttpResult*>(user)->body.append(data, size * count);
  return size * count;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto& result = *static_cast<HttpResult*>(user);
  const std::string_view line = trim(std::string_view(data, size * count));
  if (line.starts_with("HTTP/")) {
    // A new response (after a redirect or a 100 Continue): forget the last.
    result.headers.clear();
    result.body.clear();
    const auto first = line.find(' ');
    const auto second = first == std::string_view::npos ? first : line.find(' ', first + 1);
    result.reason = second == std::string_view::npos ? "" : std::string(trim(line.substr(second)));
  } else if (const auto colon = line.find(':'); colon != std::string_view::npos) {
    result.headers.emplace_back(lower(trim(line.substr(0, colon))),
                                std::string(trim(line.substr(colon + 1))));
  }
  return size * count;
}

// libcurl's LOW_SPEED check averages over a window of several seconds,
// so after a burst it notices a stall late; this callback aborts as soon
// as no byte has arrived for stall_timeout.
int on_progress(void* user, curl_off_t, curl_off_t received, curl_off_t, curl_off_t) {
  auto& state = *static_cast<HttpTransport::State*>(user);
  const auto now = std::chrono::steady_clock::now();
  if (received != state.last_bytes) {
    state.last_bytes = received;
    state.last_change = now;
    return 0;
  }
  if (now - state.last_change >= state.options.stall_timeout) {
    state.stalled = true;
    return 1;
  }
  return 0;
}

}  // namespace

HttpResult HttpTransport::perform(const HttpRequest& request) {
  auto& state = *m_state;
  auto& handle = state.handle;
  const auto& options = state.options;
  HttpResult result;
  CurlHeaderList headers;
  for (const auto& header : request.headers) headers.append(header);

  handle.reset();
  state.error[0] = '\0';
  handle.set(CURLOPT_URL, request.url.c_str(), "CURLOPT_URL");
  handle.set(CURLOPT_PROTOCOLS_STR, "http,https", "CURLOPT_PROTOCOLS_STR");
  handle.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https", "CURLOPT_REDIR_PROTOCOLS_STR");
  handle.set(CURLOPT_FOLLOWLOCATION, 1L, "CURLOPT_FOLLOWLOCATION");
  handle.set(CURLOPT_MAXREDIRS, 10L, "CURLOPT_MAXREDIRS");
  handle.set(CURLOPT_HTTP_VERSION, long{CURL_HTTP_VERSION_2TLS}, "CURLOPT_HTTP_VERSION");
  handle.set(CURLOPT_ACCEPT_ENCODING, request.encoding == ContentEncoding::any ? "" : "identity",
             "CURLOPT_ACCEPT_ENCODING");
  handle.set(CURLOPT_USERAGENT, options.user_agent.c_str(), "CURLOPT_USERAGENT");
  handle.set(CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options.connect_timeout.count() * 1000),
             "CURLOPT_CONNECTTIMEOUT_MS");
  // A stall timeout, not a total one: a 2 GB wheel on a slow link is fine
  // as long as bytes keep arriving.
  handle.set(CURLOPT_LOW_SPEED_LIMIT, 1L, "CURLOPT_LOW_SPEED_LIMIT");
  handle.set(CURLOPT_LOW_SPEED_TIME, static_cast<long>(options.stall_timeout.count()),
             "CURLOPT_LOW_SPEED_TIME");
  // TLS is always verified. Proxies: nothing is set, so libcurl reads
  // http_proxy / https_proxy / no_proxy from the environment itself.
  handle.set(CURLOPT_SSL_VERIFYPEER, 1L, "CURLOPT_SSL_VERIFYPEER");
  handle.set(CURLOPT_SSL_VERIFYHOST, 2L, "CURLOPT_SSL_VERIFYHOST");
  if (!state.ca.empty()) handle.set(CURLOPT_CAINFO, state.ca.c_str(), "CURLOPT_CAINFO");
  handle.set(CURLOPT_NOSIGNAL, 1L, "CURLOPT_NOSIGNAL");
  handle.set(CURLOPT_TCP_KEEPALIVE, 1L, "CURLOPT_TCP_KEEPALIVE");
  handle.set(CURLOPT_HTTPHEADER, headers.get(), "CURLOPT_HTTPHEADER");
  handle.set(CURLOPT_ERRORBUFFER, static_cast<char*>(state.error), "CURLOPT_ERRORBUFFER");
  handle.set(CURLOPT_WRITEFUNCTION, &on_body, "CURLOPT_WRITEFUNCTION");
  handle.set(CURLOPT_WRITEDATA, static_cast<void*>(&result), "CURLOPT_WRITEDATA");
  handle.set(CURLOPT_HEADERFUNCTION, &on_header, "CURLOPT_HEADERFUNCTION");
  handle.set(CURLOPT_HEADERDATA, static_cast<void*>(&result), "CURLOPT_HEADERDATA");
  state.last_bytes = 0;
  state.last_change = std::chrono::steady_clock::now();
  state.stalled = false;
  handle.set(CURLOPT_NOPROGRESS, 0L, "CURLOPT_NOPROGRESS");
  handle.set(CURLOPT_XFERINFOFUNCTION, &on_progress, "CURLOPT_XFERINFOFUNCTION");
  handle.set(CURLOPT_XFERINFODATA, static_cast<void*>(&state), "CURLOPT_XFERINFODATA");

  const CURLcode code = curl_easy_perform(handle.get());
  char* effective = nullptr;
  if (curl_easy_getinfo(handle.get(), CURLINFO_EFFECTIVE_URL, &effective) == CURLE_OK &&
      effective != nullptr)
    result.effective_url = effective;
  curl_easy_getinfo(handle.get(), CURLINFO_RESPONSE_CODE, &result.status);
  // Counted before content decoding, unlike body.size().
  curl_off_t received = 0;
  if (curl_easy_getinfo(handle.get(), CURLINFO_SIZE_DOWNLOAD_T, &received) == CURLE_OK &&
      received > 0)
    result.received = static_cast<std::uint64_t>(received);
  if (code != CURLE_OK) {
    result.failure = state.stalled ? TransportFailure::transient : classify(code);
    if (state.stalled ||
        (code == CURLE_OPERATION_TIMEDOUT &&
         std::string_view(state.error).find("too slow") != std::string_view::npos)) {
      result.failure_text = "the transfer stalled: no data for " +
                            std::to_string(options.stall_timeout.count()) + " s";
    } else {
      result.failure_text = curl_easy_strerror(code);
      if (state.error[0] != '\0') result.failure_text += std::string(": ") + state.error;
    }
    result.failure_hint = hint_for(code);
  }
  return result;
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

}  // namespace wheelmod::net
