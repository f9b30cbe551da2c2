#include "http_transport.hpp"

#include <curl/curl.h>

#include "curl_handle.hpp"

namespace wheelmod::net {

std::optional<std::string_view> HttpResult::header(std::string_view name) const {
  for (const auto& [key, value] : headers)
    if (key == name) return std::string_view(value);
  return std::nullopt;
}

struct HttpTransport::State {
  explicit State(const FetcherOptions& o) : options(o), ca(ca_bundle(o.connection.cacert)) {}
  const FetcherOptions& options;
  CurlHandle handle;
  std::string ca;
  char error[CURL_ERROR_SIZE] = {};
  StallWatch stall;
};

HttpTransport::HttpTransport(const FetcherOptions& options)
    : m_state(std::make_unique<State>(options)) {}

HttpTransport::~HttpTransport() = default;

namespace {

// Where the body goes: the result, up to the request's limit. A body that
// never ends (or a gzip bomb, counted decoded) must not take all memory.
struct BodySink {
  HttpResult* result;
  std::uint64_t limit;
  bool exceeded = false;
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto& sink = *static_cast<BodySink*>(user);
  if (sink.limit != 0 && sink.result->body.size() + size * count > sink.limit) {
    sink.exceeded = true;
    return 0;  // CURLE_WRITE_ERROR
  }
  sink.result->body.append(data, size * count);
  return size * count;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto& result = *static_cast<HttpResult*>(user);
  const auto line = parse_header_line(std::string_view(data, size * count));
  if (line && line->status_line) {
    // A new response (after a redirect or a 100 Continue): forget the last.
    result.headers.clear();
    result.body.clear();
    result.reason = line->reason;
  } else if (line) {
    result.headers.emplace_back(line->name, line->value);
  }
  return size * count;
}

int on_progress(void* user, curl_off_t, curl_off_t received, curl_off_t, curl_off_t) {
  auto& state = *static_cast<HttpTransport::State*>(user);
  return state.stall.check(received, state.options.connection.stall_timeout) ? 1 : 0;
}

}  // namespace

HttpResult HttpTransport::perform(const HttpRequest& request) {
  auto& state = *m_state;
  auto& handle = state.handle;
  const auto& options = state.options;
  HttpResult result;
  BodySink sink{.result = &result, .limit = request.max_body};
  CurlHeaderList headers;
  for (const auto& header : request.headers) headers.append(header);

  handle.reset();
  state.error[0] = '\0';
  handle.set(CURLOPT_URL, request.url.c_str(), "CURLOPT_URL");
  set_common_options(handle, state.options.connection, state.ca);
  handle.set(CURLOPT_ACCEPT_ENCODING, request.encoding == ContentEncoding::any ? "" : "identity",
             "CURLOPT_ACCEPT_ENCODING");
  handle.set(CURLOPT_HTTPHEADER, headers.get(), "CURLOPT_HTTPHEADER");
  handle.set(CURLOPT_ERRORBUFFER, static_cast<char*>(state.error), "CURLOPT_ERRORBUFFER");
  handle.set(CURLOPT_WRITEFUNCTION, &on_body, "CURLOPT_WRITEFUNCTION");
  handle.set(CURLOPT_WRITEDATA, static_cast<void*>(&sink), "CURLOPT_WRITEDATA");
  handle.set(CURLOPT_HEADERFUNCTION, &on_header, "CURLOPT_HEADERFUNCTION");
  handle.set(CURLOPT_HEADERDATA, static_cast<void*>(&result), "CURLOPT_HEADERDATA");
  if (request.total_timeout.count() > 0)
    handle.set(CURLOPT_TIMEOUT_MS, static_cast<long>(request.total_timeout.count()),
               "CURLOPT_TIMEOUT_MS");
  state.stall.restart();
  handle.set(CURLOPT_NOPROGRESS, 0L, "CURLOPT_NOPROGRESS");
  handle.set(CURLOPT_XFERINFOFUNCTION, &on_progress, "CURLOPT_XFERINFOFUNCTION");
  handle.set(CURLOPT_XFERINFODATA, static_cast<void*>(&state), "CURLOPT_XFERINFODATA");

  const auto started = std::chrono::steady_clock::now();
  const CURLcode code = curl_easy_perform(handle.get());
  const auto elapsed = std::chrono::steady_clock::now() - started;
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
  if (code != CURLE_OK && sink.exceeded) {
    result.failure = TransportFailure::permanent;  // the same bytes would come again
    result.failure_text = "the response is larger than " + std::to_string(request.max_body >> 20U) +
                          " MiB, the most accepted here";
    result.failure_hint = "the server is misbehaving, or the URL does not lead to an index page";
    result.body.clear();
    return result;
  }
  if (code != CURLE_OK) {
    result.failure = state.stall.stalled() ? TransportFailure::transient : classify(code);
    // libcurl says "timed out" for the connect, stall and total timeouts
    // alike; the total one is the one whose time has run out.
    result.timed_out = code == CURLE_OPERATION_TIMEDOUT && !state.stall.stalled() &&
                       request.total_timeout.count() > 0 && elapsed >= request.total_timeout;
    if (result.timed_out) {
      result.failure_text =
          "no complete answer within " + std::to_string(request.total_timeout.count()) + " ms";
    } else if (state.stall.stalled() ||
               (code == CURLE_OPERATION_TIMEDOUT &&
                std::string_view(state.error).find("too slow") != std::string_view::npos)) {
      result.failure_text = stall_text(options.connection.stall_timeout);
    } else {
      result.failure_text = curl_easy_strerror(code);
      if (state.error[0] != '\0') result.failure_text += std::string(": ") + state.error;
    }
    result.failure_hint = hint_for(code);
  }
  return result;
}

}  // namespace wheelmod::net
