// Fetcher: dispatch by URL kind, retries with backoff, the page cache, and
// byte ranges (RFC 9110 §14). The wire work is in http_transport.cpp, the
// disk work in file_transport.cpp and http_cache.cpp.
#include "net/fetcher.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <random>
#include <stdexcept>
#include <thread>

#include "core/errors.hpp"
#include "core/reporter.hpp"
#include "core/strings.hpp"
#include "core/url.hpp"
#include "file_transport.hpp"
#include "http_cache.hpp"
#include "http_transport.hpp"

namespace wheelmod::net {

namespace {

using std::chrono::milliseconds;
using SteadyClock = std::chrono::steady_clock;

// The largest index page kept (decoded): PyPI's biggest project pages are
// tens of MiB; a page that goes on past this is hostile or not a page.
constexpr std::uint64_t k_max_page_bytes = 256ULL << 20U;

std::string describe_status(const HttpResult& result) {
  return net::describe_status(result.status, result.reason);
}

[[noreturn]] void throw_status(std::string_view url, const HttpResult& result) {
  throw IoError(mask_credentials(url), describe_status(result), hint_for_status(result.status));
}

// "text/HTML; charset=utf-8" -> "text/html".
std::string media_type(std::string_view value) {
  value = value.substr(0, value.find(';'));
  std::string out;
  for (const char c : value)
    if (!std::isspace(static_cast<unsigned char>(c))) out.push_back(ascii_lower(c));
  return out;
}

Response to_response(HttpResult&& result) {
  Response response;
  response.status = result.status;
  response.content_type = media_type(result.header("content-type").value_or(""));
  response.effective_url = std::move(result.effective_url);
  response.body = std::move(result.body);
  response.total_size = response.body.size();
  return response;
}

bool is_success(long status) { return status >= 200 && status < 300; }

}  // namespace

struct Fetcher::Impl {
  explicit Impl(FetcherOptions given)
      : options(std::move(given)), transport(options), random(std::random_device{}()) {
    options.attempts = std::max(options.attempts, 1U);
    if (!options.cache_dir.empty()) cache.emplace(options.cache_dir / "http");
  }

  FetcherOptions options;
  HttpTransport transport;  // holds a reference to options: declared after it
  std::optional<PageCache> cache;
  FetchStats stats;
  std::minstd_rand random;
  /// The whole resource a server sent to the last range request; valid
  /// until the next request of any kind.
  struct WholeBody {
    std::string url;
    Response response;
  };
  std::optional<WholeBody> whole_body;

  milliseconds delay(unsigned attempt, std::optional<milliseconds> retry_after) {
    const double jitter = std::uniform_real_distribution<double>(0.5, 1.5)(random);
    return retry_delay(options.connection.backoff, attempt, retry_after, jitter);
  }

  /// Sends `request` until an answer that retrying cannot change: any
  /// status but 429 and 5xx. Transient failures and those statuses are
  /// retried up to options.attempts times; then IoError. With a
  /// `deadline`, every attempt and wait ends by it, and passing it is an
  /// IoError of its own: a page that trickles is given up, not retried.
  HttpResult exchange(HttpRequest request,
                      std::optional<SteadyClock::time_point> deadline = std::nullopt) {
    std::string last_cause;
    std::string hint;
    std::uint64_t received = 0;
    for (unsigned attempt = 1;; ++attempt) {
      if (deadline) {
        const auto left = std::chrono::ceil<milliseconds>(*deadline - SteadyClock::now());
        if (left <= milliseconds(0)) throw page_timeout(request.url, received, last_cause);
        request.total_timeout = left;
      }
      HttpResult result = transport.perform(request);
      ++stats.requests;
      stats.body_bytes += result.received;
      received += result.received;
      std::optional<milliseconds> retry_after;
      if (result.timed_out) throw page_timeout(request.url, received, last_cause);
      if (result.failure == TransportFailure::permanent)
        throw IoError(mask_credentials(request.url), result.failure_text, result.failure_hint);
      if (result.failure == TransportFailure::transient) {
        last_cause = result.failure_text;
        hint = result.failure_hint.empty()
                   ? "check the network connection and the proxy variables (https_proxy, "
                     "no_proxy), or try again later"
                   : result.failure_hint;
      } else if (is_retryable_status(result.status)) {
        last_cause = describe_status(result);
        hint = hint_for_status(result.status);
        if (const auto value = result.header("retry-after"))
          retry_after = parse_retry_after(*value);
      } else {
        return result;
      }
      if (attempt >= options.attempts) {
        throw IoError(mask_credentials(request.url),
                      last_cause + " (after " + std::to_string(attempt) +
                          (attempt == 1 ? " attempt)" : " attempts)"),
                      hint);
      }
      auto wait = delay(attempt, retry_after);
      if (deadline)
        wait = std::min(wait, std::chrono::ceil<milliseconds>(*deadline - SteadyClock::now()));
      std::this_thread::sleep_for(wait);
    }
  }

  /// The page took all of options.page_timeout; `earlier`: why an earlier
  /// attempt failed, if one did.
  IoError page_timeout(std::string_view url, std::uint64_t received,
                       const std::string& earlier) const {
    const auto limit = options.page_timeout.count();
    IoError error(mask_credentials(url),
                  "the page took longer than " + std::to_string(limit) + " s in all (" +
                      format_bytes(received) + " received)",
                  "the server sends it too slowly, or a trickle that never ends; if the index is "
                  "just slow, allow more with --page-timeout SECONDS (now " +
                      std::to_string(limit) + ")");
    if (!earlier.empty()) error.with_detail("an earlier attempt failed: " + earlier);
    return error;
  }

  PageAnswer ask_page(std::string_view url, std::string_view accept) {
    whole_body.reset();
    if (const auto path = local_path_of(url)) {
      auto page = read_local(*path, url, LocalTarget::page);
      std::string absent = page ? "" : "no such file";
      return {std::move(page), std::move(absent)};
    }
    auto cached = cache ? cache->load(url, accept) : std::nullopt;
    HttpRequest request{.url = std::string(url),
                        .headers = {"Accept: " + std::string(accept)},
                        .encoding = ContentEncoding::any,
                        .max_body = k_max_page_bytes,
                        .total_timeout = milliseconds(0)};
    // RFC 9110 §13.1: revalidate what the cache holds; 304 = still valid.
    if (cached && !cached->etag.empty())
      request.headers.push_back("If-None-Match: " + cached->etag);
    if (cached && !cached->last_modified.empty())
      request.headers.push_back("If-Modified-Since: " + cached->last_modified);
    // The deadline covers the retries too: a page retried four times
    // would otherwise take four page timeouts and the waits between them.
    HttpResult result = exchange(request, SteadyClock::now() + options.page_timeout);
    // download.pytorch.org (S3 behind CloudFront) answers 403 for a page
    // that does not exist; uv treats it as "not found" too.
    if (result.status == 404 || result.status == 403)
      return {std::nullopt, "HTTP " + std::to_string(result.status)};
    if (result.status == 304) {
      if (!cached)
        throw IoError(mask_credentials(url), "HTTP 304 Not Modified to an unconditional request",
                      "the server or a proxy misbehaves; try again without the cache");
      ++stats.not_modified;
      Response response;
      response.total_size = cached->body.size();
      response.body = std::move(cached->body);
      response.content_type = std::move(cached->content_type);
      response.effective_url =
          cached->effective_url.empty() ? std::string(url) : std::move(cached->effective_url);
      response.from_cache = true;
      return {std::move(response), {}};
    }
    if (!is_success(result.status)) throw_status(url, result);
    const std::string etag(result.header("etag").value_or(""));
    const std::string last_modified(result.header("last-modified").value_or(""));
    const bool no_store =
        result.header("cache-control").value_or("").find("no-store") != std::string_view::npos;
    Response response = to_response(std::move(result));
    if (cache && !no_store && (!etag.empty() || !last_modified.empty()))
      cache->store(url, accept,
                   CachedPage{.body = response.body,
                              .etag = etag,
                              .last_modified = last_modified,
                              .content_type = response.content_type,
                              .effective_url = response.effective_url});
    return {std::move(response), {}};
  }

  Response get(std::string_view url) {
    if (whole_body && whole_body->url == url) {
      Response response = std::move(whole_body->response);
      whole_body.reset();
      return response;
    }
    whole_body.reset();
    if (const auto path = local_path_of(url)) {
      auto response = read_local(*path, url, LocalTarget::file);
      if (!response)
        throw IoError(mask_credentials(url), "no such file: " + path->string(), "check the path");
      return std::move(*response);
    }
    HttpResult result = exchange(
        HttpRequest{.url = std::string(url), .headers = {}, .encoding = ContentEncoding::any});
    if (!is_success(result.status)) throw_status(url, result);
    return to_response(std::move(result));
  }

  Response get_range(std::string_view url, std::int64_t offset, std::uint64_t length) {
    if (offset >= 0 && length == 0) throw std::invalid_argument("get_range: empty range");
    whole_body.reset();
    if (const auto path = local_path_of(url)) return read_local_range(*path, url, offset, length);
    const bool suffix = offset < 0;
    const std::uint64_t wanted = suffix ? static_cast<std::uint64_t>(-(offset + 1)) + 1 : length;
    const auto start = static_cast<std::uint64_t>(suffix ? 0 : offset);
    // RFC 9110 §14.1.2: "bytes=-N" is the last N bytes.
    const std::string range =
        suffix ? "bytes=-" + std::to_string(wanted)
               : "bytes=" + std::to_string(start) + "-" + std::to_string(start + wanted - 1);
    // Identity encoding: a compressed answer would not be the stored bytes.
    HttpResult result = exchange(HttpRequest{.url = std::string(url),
                                             .headers = {"Range: " + range},
                                             .encoding = ContentEncoding::identity});
    if (result.status == 416) {
      // RFC 9110 §14.4: a 416 names the current length as "bytes */N".
      const auto value = result.header("content-range").value_or("");
      const auto total = unsatisfied_range_length(value);
      throw IoError(mask_credentials(url),
                    "HTTP 416 Range Not Satisfiable: " + range +
                        (total ? " (the file has " + std::to_string(*total) + " bytes)" : ""),
                    "the file may have changed while it was read; run again");
    }
    if (result.status == 200) {
      // The server ignored Range and sent everything: keep it for a get()
      // of the same URL that usually follows (the caller falls back to the
      // whole file), so it is not downloaded twice.
      whole_body = WholeBody{.url = std::string(url), .response = to_response(std::move(result))};
      return cut_slice(url, whole_body->response, suffix, start, wanted);
    }
    if (result.status != 206) throw_status(url, result);
    const auto content_range = parse_content_range(result.header("content-range").value_or(""));
    if (!content_range || !content_range->complete)
      throw IoError(mask_credentials(url),
                    "HTTP 206 without a usable Content-Range ('" +
                        std::string(result.header("content-range").value_or("")) + "')",
                    "the server's range support is broken; report it to the index's operators");
    const std::uint64_t total = *content_range->complete;
    const std::uint64_t expected_first = suffix ? (wanted < total ? total - wanted : 0) : start;
    const std::uint64_t expected_last = suffix ? total - 1 : std::min(start + wanted, total) - 1;
    if (content_range->first != expected_first || content_range->last != expected_last ||
        result.body.size() != expected_last - expected_first + 1)
      throw IoError(mask_credentials(url),
                    "asked for " + range + ", got bytes " + std::to_string(content_range->first) +
                        "-" + std::to_string(content_range->last) + " (" +
                        std::to_string(result.body.size()) + " bytes of body)",
                    "the server's range support is broken; report it to the index's operators");
    Response response = to_response(std::move(result));
    response.total_size = total;
    return response;
  }

  // The server ignored Range and sent the whole resource (RFC 9110 §14.2
  // allows that): cut the slice that was asked for.
  static Response cut_slice(std::string_view url, const Response& whole, bool suffix,
                            std::uint64_t start, std::uint64_t wanted) {
    const std::uint64_t size = whole.body.size();
    if (suffix) {
      start = wanted < size ? size - wanted : 0;
    } else if (start >= size) {
      throw IoError(mask_credentials(url),
                    "byte range starting at " + std::to_string(start) + " is past the end (" +
                        std::to_string(size) + " bytes)",
                    "the file may have changed while it was read; run again");
    }
    Response slice;
    slice.status = whole.status;
    slice.content_type = whole.content_type;
    slice.effective_url = whole.effective_url;
    slice.body = whole.body.substr(static_cast<std::size_t>(start),
                                   static_cast<std::size_t>(std::min(wanted, size - start)));
    slice.total_size = size;
    return slice;
  }
};

Fetcher::Fetcher(FetcherOptions options) : m_impl(std::make_unique<Impl>(std::move(options))) {}
Fetcher::~Fetcher() = default;

std::optional<Response> Fetcher::get_page(std::string_view url, std::string_view accept) {
  return m_impl->ask_page(url, accept).page;
}

PageAnswer Fetcher::ask_page(std::string_view url, std::string_view accept) {
  return m_impl->ask_page(url, accept);
}

Response Fetcher::get(std::string_view url) { return m_impl->get(url); }

Response Fetcher::get_range(std::string_view url, std::int64_t offset, std::uint64_t length) {
  return m_impl->get_range(url, offset, length);
}

const FetchStats& Fetcher::stats() const { return m_impl->stats; }

std::string transfer_library_version() { return curl_version(); }

}  // namespace wheelmod::net
