// Private to wheelmod_net: one file's download over HTTP, attempt after
// attempt, as the multi loop in download.cpp drives it. A Transfer owns
// its easy handle and the hasher that writes the `.part` and has seen
// exactly the bytes it holds — so a retry inside one run continues the
// same hash, and only a `.part` from an earlier run is read back.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "core/reporter.hpp"
#include "core/unique_fd.hpp"
#include "curl_handle.hpp"
#include "http_common.hpp"
#include "net/download.hpp"
#include "stream_hasher.hpp"

namespace wheelmod::net {

using SteadyClock = std::chrono::steady_clock;

/// What the loop does with a transfer after an attempt ended.
enum class AttemptVerdict {
  complete,  // every byte is in the .part: verify and commit it
  retry,     // try again at `not_before` (from where the .part ends)
  failed,    // `failure` holds the error
};

/// The error for a file over DownloadOptions::max_size: `cause` says who
/// said how large (the index, Content-Length, or the body itself).
IoError over_max_size(const DownloadRequest& request, const std::string& cause);

class Transfer {
 public:
  Transfer(const DownloadRequest& request, std::size_t index, const DownloadOptions& options,
           const std::string& ca, Reporter& reporter);

  /// Continue from the `.part` an earlier run left (hashing it first).
  void adopt_leftover(std::uint64_t bytes, std::string validator,
                      std::optional<std::uint64_t> size);
  /// True when the .part already holds the whole file (known size): no
  /// request is needed.
  [[nodiscard]] bool part_is_complete() const;

  /// Prepares the easy handle for the next attempt (Range + If-Range when
  /// continuing); the .part is opened when the answer's body begins.
  CURL* begin_attempt();
  /// Reads the finished attempt (`code` from libcurl) and says what next.
  AttemptVerdict end_attempt(CURLcode code);

  /// Closes the hasher: the digest of the .part. Throws IoError.
  std::string finish_hash();
  /// Forget the .part and start from byte 0 at the next attempt.
  void restart();

  [[nodiscard]] const DownloadRequest& request() const { return m_request; }
  [[nodiscard]] std::size_t index() const { return m_index; }
  [[nodiscard]] TaskId task() const { return m_task; }
  [[nodiscard]] SteadyClock::time_point not_before() const { return m_not_before; }
  [[nodiscard]] std::optional<std::uint64_t> resumed_from() const { return m_resumed_from; }
  [[nodiscard]] std::uint64_t received() const { return m_received; }
  [[nodiscard]] unsigned attempts() const { return m_attempts; }
  [[nodiscard]] bool continued_a_part() const { return m_continued_a_part; }
  [[nodiscard]] std::optional<Error>& failure() { return m_failure; }

  // The libcurl callbacks (C functions) call these.
  std::size_t on_body(const char* data, std::size_t size);
  void on_header(std::string_view line);
  bool should_abort(curl_off_t received);

 private:
  enum class BodyTarget { undecided, part, discard };
  void decide_body_target();
  void schedule_retry(std::string cause, std::string hint,
                      std::optional<std::chrono::milliseconds> retry_after);
  [[nodiscard]] std::uint64_t have() const { return m_hasher ? m_hasher->bytes() : 0; }
  [[nodiscard]] std::optional<std::string_view> header(std::string_view name) const;
  [[nodiscard]] long status() const;

  const DownloadRequest& m_request;
  std::size_t m_index;
  const DownloadOptions& m_options;
  const std::string& m_ca;
  Reporter& m_reporter;
  TaskId m_task = 0;  // set by the first begin_attempt

  // Across attempts.
  CurlHandle m_handle;
  std::unique_ptr<StreamHasher> m_hasher;  // null: nothing in the .part yet; writes the .part
  std::string m_validator;                 // If-Range value (strong ETag or Last-Modified)
  std::optional<std::uint64_t> m_total;    // the whole file's size, once a server said
  std::optional<std::uint64_t> m_resumed_from;
  bool m_continued_a_part = false;  // some bytes came from a ranged request or an earlier run
  unsigned m_attempts = 0;
  unsigned m_failures_in_a_row = 0;
  std::uint64_t m_received = 0;
  SteadyClock::time_point m_not_before{};
  std::optional<Error> m_failure;

  // This attempt.
  std::unique_ptr<CurlHeaderList> m_request_headers;
  std::vector<std::pair<std::string, std::string>> m_headers;
  std::string m_reason;
  BodyTarget m_target = BodyTarget::undecided;
  std::uint64_t m_attempt_bytes = 0;
  std::optional<Error> m_abort;   // why on_body stopped the transfer
  bool m_abort_restarts = false;  // the abort asks for a fresh start, not a failure
  bool m_abort_discards = false;  // the .part holds bytes no resume may trust
  StallWatch m_stall;
  char m_error[CURL_ERROR_SIZE] = {};
};

}  // namespace wheelmod::net
