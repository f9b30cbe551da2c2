#include "transfer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include <sys/stat.h>

#include "core/own_file.hpp"
#include "core/url.hpp"
#include "hash/sha256.hpp"
#include "part_file.hpp"

namespace wheelmod::net {

namespace {

// The write buffer libcurl hands over per callback: big enough that the
// per-call work (a write(2), a memcpy for the hasher) is noise.
constexpr long k_buffer_size = 256 * 1024;
// What an attempt must bring to count as progress rather than a failure,
// and how many times `attempts` a file may take in all.
constexpr std::uint64_t k_progress_bytes = 1024 * 1024;
constexpr unsigned k_attempts_cap_factor = 10;

std::size_t body_callback(char* data, std::size_t size, std::size_t count, void* user) {
  return static_cast<Transfer*>(user)->on_body(data, size * count);
}

std::size_t header_callback(char* data, std::size_t size, std::size_t count, void* user) {
  static_cast<Transfer*>(user)->on_header(std::string_view(data, size * count));
  return size * count;
}

int progress_callback(void* user, curl_off_t, curl_off_t received, curl_off_t, curl_off_t) {
  return static_cast<Transfer*>(user)->should_abort(received) ? 1 : 0;
}

double jitter() {
  thread_local std::minstd_rand random(std::random_device{}());
  return std::uniform_real_distribution<double>(0.5, 1.5)(random);
}

// RFC 9110 §13.1.5: If-Range may carry a strong entity tag or a date; a
// weak tag (W/"...") must not be used, since weakly equal files may differ
// in bytes.
std::string if_range_validator(std::optional<std::string_view> etag,
                               std::optional<std::string_view> last_modified) {
  if (etag && !etag->empty() && !etag->starts_with("W/")) return std::string(*etag);
  if (last_modified && !last_modified->empty()) return std::string(*last_modified);
  return {};
}

}  // namespace

IoError over_max_size(const DownloadRequest& request, const std::string& cause) {
  return IoError(mask_credentials(request.url), cause,
                 "the server is misbehaving or the URL leads elsewhere, or the file is larger "
                 "than this run allows; if it is genuine, allow it with --max-download-size "
                 "SIZE (default 64G)");
}

Transfer::Transfer(const DownloadRequest& request, std::size_t index,
                   const DownloadOptions& options, const std::string& ca, Reporter& reporter)
    : m_request(request), m_index(index), m_options(options), m_ca(ca), m_reporter(reporter) {}

void Transfer::adopt_leftover(std::uint64_t bytes, std::string validator,
                              std::optional<std::uint64_t> size) {
  m_hasher = std::make_unique<StreamHasher>(
      StreamHasher::Prefix{.file = part_path(m_request.destination), .bytes = bytes});
  m_validator = std::move(validator);
  m_total = size;
  m_resumed_from = bytes;
  m_continued_a_part = true;
}

bool Transfer::part_is_complete() const { return m_total && have() == *m_total && have() > 0; }

void Transfer::restart() {
  m_hasher.reset();
  m_validator.clear();
  m_total.reset();
  m_resumed_from.reset();
  m_continued_a_part = false;
  remove_part(m_request.destination);
}

std::string Transfer::finish_hash() {
  if (!m_hasher) return hash::to_hex(hash::Sha256().finish());  // an empty file
  auto digest = m_hasher->finish();
  m_hasher.reset();
  return hash::to_hex(digest);
}

CURL* Transfer::begin_attempt() {
  // The task starts with its first request, not when it is queued: rates
  // and ETAs count from there.
  if (m_attempts == 0) m_task = m_reporter.on_start(m_request.label, m_request.size);
  ++m_attempts;
  m_headers.clear();
  m_reason.clear();
  m_target = BodyTarget::undecided;
  m_attempt_bytes = 0;
  m_abort.reset();
  m_abort_restarts = false;
  m_abort_discards = false;
  m_stall.restart();
  m_error[0] = '\0';

  m_request_headers = std::make_unique<CurlHeaderList>();
  if (have() > 0) {
    // RFC 9110 §14.2: the rest of the file from where the .part ends;
    // If-Range makes a changed file come back whole (200) instead of a
    // range of different bytes.
    m_request_headers->append("Range: bytes=" + std::to_string(have()) + "-");
    if (!m_validator.empty()) m_request_headers->append("If-Range: " + m_validator);
  }
  m_handle.reset();
  set_common_options(m_handle, m_options.connection, m_ca);
  m_handle.set(CURLOPT_URL, m_request.url.c_str(), "CURLOPT_URL");
  m_handle.set(CURLOPT_HTTPHEADER, m_request_headers->get(), "CURLOPT_HTTPHEADER");
  // CURLOPT_PIPEWAIT (https://curl.se/libcurl/c/CURLOPT_PIPEWAIT.html):
  // wait for a connection that may multiplex rather than open another, so
  // that HTTP/2 transfers share one connection. Only for https://: with
  // CURL_HTTP_VERSION_2TLS libcurl speaks HTTP/1.1 to clear-text servers
  // (CURLOPT_HTTP_VERSION.html), and "the waiting time is as long as it
  // takes ... to get the necessary response back". Over TLS that is the
  // handshake (ALPN says h2 or http/1.1, and the waiting transfers go on);
  // over http:// libcurl 7.88 learns it from the first response and wakes
  // the waiting transfers only when that transfer is done ("Transfer was
  // pending, now try another"): `--jobs 4` ran one file, then the others.
  m_handle.set(CURLOPT_PIPEWAIT, may_multiplex(m_request.url) ? 1L : 0L, "CURLOPT_PIPEWAIT");
  m_handle.set(CURLOPT_BUFFERSIZE, k_buffer_size, "CURLOPT_BUFFERSIZE");
  m_handle.set(CURLOPT_ERRORBUFFER, static_cast<char*>(m_error), "CURLOPT_ERRORBUFFER");
  m_handle.set(CURLOPT_PRIVATE, static_cast<void*>(this), "CURLOPT_PRIVATE");
  m_handle.set(CURLOPT_WRITEFUNCTION, &body_callback, "CURLOPT_WRITEFUNCTION");
  m_handle.set(CURLOPT_WRITEDATA, static_cast<void*>(this), "CURLOPT_WRITEDATA");
  m_handle.set(CURLOPT_HEADERFUNCTION, &header_callback, "CURLOPT_HEADERFUNCTION");
  m_handle.set(CURLOPT_HEADERDATA, static_cast<void*>(this), "CURLOPT_HEADERDATA");
  m_handle.set(CURLOPT_NOPROGRESS, 0L, "CURLOPT_NOPROGRESS");
  m_handle.set(CURLOPT_XFERINFOFUNCTION, &progress_callback, "CURLOPT_XFERINFOFUNCTION");
  m_handle.set(CURLOPT_XFERINFODATA, static_cast<void*>(this), "CURLOPT_XFERINFODATA");
  return m_handle.get();
}

void Transfer::on_header(std::string_view line) {
  const auto parsed = parse_header_line(line);
  if (!parsed) return;
  if (parsed->status_line) {
    // A new response (after a redirect or a 100 Continue): forget the last.
    m_headers.clear();
    m_reason = parsed->reason;
  } else {
    m_headers.emplace_back(parsed->name, parsed->value);
  }
}

std::optional<std::string_view> Transfer::header(std::string_view name) const {
  for (const auto& [key, value] : m_headers)
    if (key == name) return std::string_view(value);
  return std::nullopt;
}

long Transfer::status() const {
  long code = 0;
  curl_easy_getinfo(m_handle.get(), CURLINFO_RESPONSE_CODE, &code);
  return code;
}

bool Transfer::should_abort(curl_off_t received) {
  return m_stall.check(received, m_options.connection.stall_timeout);
}

// The first body byte (or the end of a response without one): the status
// and headers are known, so decide where the body goes.
void Transfer::decide_body_target() {
  const long code = status();
  // Opened at the first body byte, so a refused connection leaves no .part.
  UniqueFd part;
  if (code == 200 || (code == 206 && have() > 0)) {
    try {
      part = open_own_file(part_path(m_request.destination), ExistingFile::reuse,
                           O_WRONLY);  // kept: resumed
    } catch (IoError& error) {
      m_abort = std::move(error);
      return;
    }
  }
  if (code == 206 && have() > 0) {
    const auto range = parse_content_range(header("content-range").value_or(""));
    if (!range || range->first != have() || !range->complete) {
      // Not the continuation that was asked for: start over, whole.
      m_abort = IoError(mask_credentials(m_request.url),
                        "asked for bytes " + std::to_string(have()) + "-, got '" +
                            std::string(header("content-range").value_or("no Content-Range")) + "'",
                        "the server's range support is broken; report it to the index's operators");
      m_abort_restarts = true;
      return;
    }
    m_total = range->complete;
    if (::ftruncate(part.get(), static_cast<off_t>(have())) != 0)
      m_abort = IoError(part_path(m_request.destination).string(),
                        std::string("cannot continue the file: ") + std::strerror(errno));
    m_continued_a_part = true;
    m_target = BodyTarget::part;
  } else if (code == 200) {
    // The whole file: a first request, a server that ignores Range
    // (RFC 9110 §14.2 allows it), or an If-Range that did not match.
    m_hasher = std::make_unique<StreamHasher>();
    m_resumed_from.reset();
    m_continued_a_part = false;
    // Truncate only a .part that has bytes: on ext4 truncating to zero
    // arms auto_da_alloc, which flushes the whole file at close.
    struct stat info {};
    if (::fstat(part.get(), &info) != 0 || (info.st_size != 0 && ::ftruncate(part.get(), 0) != 0)) {
      m_abort = IoError(part_path(m_request.destination).string(),
                        std::string("cannot truncate: ") + std::strerror(errno));
      return;
    }
    curl_off_t length = -1;
    curl_easy_getinfo(m_handle.get(), CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
    m_total = length >= 0 ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(length))
                          : std::nullopt;
    m_validator = if_range_validator(header("etag"), header("last-modified"));
    try {
      if (m_validator.empty()) {
        std::error_code ignored;
        std::filesystem::remove(resume_info_path(m_request.destination), ignored);
      } else {
        write_resume_info(
            m_request.destination,
            ResumeInfo{.url = m_request.url, .validator = m_validator, .size = m_total});
      }
    } catch (const Error& error) {
      m_abort = error;
      return;
    }
    m_target = BodyTarget::part;
  } else {
    m_target = BodyTarget::discard;  // an error page; the status says it all
  }
  // The bytes are written by the hasher's thread (stream_hasher.hpp says why).
  if (m_target == BodyTarget::part)
    m_hasher->write_to(std::move(part), part_path(m_request.destination));
  if (m_target == BodyTarget::part && m_total && !m_request.size)
    m_reporter.on_total(m_task, *m_total);
  if (m_target == BodyTarget::part && m_request.size && m_total && *m_total != *m_request.size) {
    m_abort = IntegrityError(mask_credentials(m_request.url),
                             "the server sends " + std::to_string(*m_total) +
                                 " bytes, the index says " + std::to_string(*m_request.size),
                             "the file on the server is not the one the index lists; if the "
                             "index is stale, try again later");
  } else if (m_target == BodyTarget::part && m_total && *m_total > m_options.max_size) {
    // Refused on the server's word, before its body is written.
    m_abort = over_max_size(m_request, "the server announces " + std::to_string(*m_total) +
                                           " bytes, more than --max-download-size (" +
                                           format_bytes(m_options.max_size) + "); not downloaded");
    m_abort_discards = true;
  }
}

std::size_t Transfer::on_body(const char* data, std::size_t size) {
  try {
    if (m_target == BodyTarget::undecided) decide_body_target();
    if (m_abort) return 0;  // CURLE_WRITE_ERROR ends this attempt
    if (m_target == BodyTarget::discard) return size;
    if (m_request.size && have() + size > *m_request.size) {
      // No Content-Length (chunked) or none that was checked: the index's
      // size still bounds what is written, so a body that never ends
      // cannot fill the disk.
      m_abort = IntegrityError(mask_credentials(m_request.url),
                               "the server sends more than the " + std::to_string(*m_request.size) +
                                   " bytes the index says",
                               "the file on the server is not the one the index lists; if the "
                               "index is stale, try again later");
      return 0;
    }
    if (have() + size > m_options.max_size) {
      // No size from the index or the server (else it was checked above): a
      // body that never ends stops here, and its bytes are not kept, so no
      // later run resumes them.
      m_abort = over_max_size(m_request, "the body goes on past --max-download-size (" +
                                             format_bytes(m_options.max_size) +
                                             ") with no size announced; stopped, nothing kept");
      m_abort_discards = true;
      return 0;
    }
    // A write failed on the hasher's thread (the full error comes from
    // close_file() when the attempt ends).
    if (m_hasher->failed()) return 0;
    m_hasher->feed(data, size);
    m_attempt_bytes += size;
    m_reporter.on_progress(m_task, have());
    return size;
  } catch (const Error& error) {
    m_abort = error;
  } catch (const std::exception& error) {
    m_abort = Error(ExitCode::internal, m_request.label, error.what());
  }
  return 0;
}

void Transfer::schedule_retry(std::string cause, std::string hint,
                              std::optional<std::chrono::milliseconds> retry_after) {
  // An attempt that moved the file forward by a real amount is progress,
  // not a failure: a proxy that drops a 4 GB transfer every few hundred MB
  // still gets it there. A trickle (a server that sends a little, then
  // stalls) is not progress, and a hard cap bounds even a slow drip.
  const bool progressed = m_attempt_bytes >= k_progress_bytes;
  m_failures_in_a_row = progressed ? 1 : m_failures_in_a_row + 1;
  if (m_failures_in_a_row >= m_options.attempts ||
      m_attempts >= m_options.attempts * k_attempts_cap_factor) {
    m_failure = IoError(mask_credentials(m_request.url),
                        cause + " (after " + std::to_string(m_attempts) +
                            (m_attempts == 1 ? " attempt)" : " attempts)"),
                        hint.empty() ? "check the network connection and the proxy variables "
                                       "(https_proxy, no_proxy), or try again later"
                                     : hint);
    return;
  }
  m_not_before = SteadyClock::now() + retry_delay(m_options.connection.backoff, m_failures_in_a_row,
                                                  retry_after, jitter());
}

AttemptVerdict Transfer::end_attempt(CURLcode code) {
  curl_off_t received = 0;
  if (curl_easy_getinfo(m_handle.get(), CURLINFO_SIZE_DOWNLOAD_T, &received) == CURLE_OK &&
      received > 0)
    m_received += static_cast<std::uint64_t>(received);
  if (m_target == BodyTarget::undecided && code == CURLE_OK) decide_body_target();
  // Every byte received is on disk before the attempt is judged: a retry
  // asks for the rest from have(), and a write error ends the transfer.
  if (m_hasher) {
    if (auto error = m_hasher->close_file(); error && !m_abort)
      m_abort = std::move(error->with_detail("downloading " + mask_credentials(m_request.url)));
  }
  if (m_abort) {
    if (m_abort_restarts) {
      restart();
      schedule_retry(m_abort->cause(), m_abort->hint(), std::nullopt);
      return m_failure ? AttemptVerdict::failed : AttemptVerdict::retry;
    }
    if (m_abort_discards || m_abort->code() == ExitCode::integrity)
      remove_part(m_request.destination);
    m_failure = std::move(m_abort);
    return AttemptVerdict::failed;
  }
  if (code != CURLE_OK) {
    const bool stalled =
        m_stall.stalled() || (code == CURLE_OPERATION_TIMEDOUT &&
                              std::string_view(m_error).find("too slow") != std::string_view::npos);
    std::string cause =
        stalled ? stall_text(m_options.connection.stall_timeout) : curl_easy_strerror(code);
    if (!stalled && m_error[0] != '\0') cause += std::string(": ") + m_error;
    if (!stalled && classify(code) == TransportFailure::permanent) {
      m_failure = IoError(mask_credentials(m_request.url), cause, hint_for(code));
      return AttemptVerdict::failed;
    }
    schedule_retry(std::move(cause), hint_for(code), std::nullopt);
    return m_failure ? AttemptVerdict::failed : AttemptVerdict::retry;
  }
  const long code_http = status();
  if (m_target == BodyTarget::part) {
    if (m_total && have() < *m_total) {
      // A clean close before the end (a proxy may do that): continue.
      schedule_retry("the server sent " + std::to_string(have()) + " of " +
                         std::to_string(*m_total) + " bytes",
                     {}, std::nullopt);
      return m_failure ? AttemptVerdict::failed : AttemptVerdict::retry;
    }
    return AttemptVerdict::complete;
  }
  if (code_http == 416 && have() > 0) {
    // RFC 9110 §15.5.17: nothing at or after the offset. When the file is
    // exactly as long as the .part, the .part is the whole file (an earlier
    // run died between the last byte and the rename); otherwise start over.
    const auto length = unsatisfied_range_length(header("content-range").value_or(""));
    if (length && *length == have()) {
      m_total = length;
      return AttemptVerdict::complete;
    }
    restart();
    schedule_retry("HTTP 416: the .part is longer than the file", {}, std::nullopt);
    return m_failure ? AttemptVerdict::failed : AttemptVerdict::retry;
  }
  const std::string cause = describe_status(code_http, m_reason);
  if (is_retryable_status(code_http)) {
    const auto value = header("retry-after");
    schedule_retry(cause, hint_for_status(code_http),
                   value ? parse_retry_after(*value) : std::nullopt);
    return m_failure ? AttemptVerdict::failed : AttemptVerdict::retry;
  }
  m_failure = IoError(mask_credentials(m_request.url), cause, hint_for_status(code_http));
  return AttemptVerdict::failed;
}

}  // namespace wheelmod::net
