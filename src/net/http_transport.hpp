// Private to wheelmod_net: one HTTP exchange over libcurl, no retries and
// no interpretation of the status (fetcher.cpp does both).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http_common.hpp"
#include "net/fetcher.hpp"

namespace wheelmod::net {

enum class ContentEncoding {
  any,       // gzip/deflate accepted and decoded (pages)
  identity,  // byte ranges must address the stored bytes
};

struct HttpRequest {
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  ContentEncoding encoding = ContentEncoding::any;
  /// The most body bytes (after content decoding) to keep; 0 = no limit.
  /// Past it the transfer is aborted: a permanent failure, not retried.
  std::uint64_t max_body = 0;
  /// The most the whole exchange may take (CURLOPT_TIMEOUT_MS); 0 = no
  /// limit, only the stall timeout (a wheel may take an hour).
  std::chrono::milliseconds total_timeout{0};
};

struct HttpResult {
  TransportFailure failure = TransportFailure::none;
  std::string failure_text;  // one line, when failure != none
  std::string failure_hint;  // what the user can do about it, when known
  bool timed_out = false;    // the request's total_timeout ended it (a transient failure)
  long status = 0;
  std::string reason;  // "Not Found" (HTTP/1.x only; "" over HTTP/2)
  std::vector<std::pair<std::string, std::string>>
      headers;  // names in lower case, last response only
  std::string body;
  std::uint64_t received = 0;  // body bytes off the wire (before gzip decoding)
  std::string effective_url;

  /// The first value of header `name` (lower case), if any.
  [[nodiscard]] std::optional<std::string_view> header(std::string_view name) const;
};

/// One reusable libcurl easy handle (so connections are kept alive).
class HttpTransport {
 public:
  explicit HttpTransport(const FetcherOptions& options);
  ~HttpTransport();
  HttpTransport(const HttpTransport&) = delete;
  HttpTransport& operator=(const HttpTransport&) = delete;

  HttpResult perform(const HttpRequest& request);

  struct State;  // public so that libcurl's C callbacks can name it

 private:
  std::unique_ptr<State> m_state;
};

}  // namespace wheelmod::net
