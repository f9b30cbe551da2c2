// download_all: for each file, the cheapest way to a verified copy — it is
// already there, the cache has it, a local file is copied, or it comes
// over HTTP — with the HTTP transfers driven `jobs` at a time by one
// libcurl multi loop (transfer.cpp does the per-file protocol work).
#include "net/download.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <set>
#include <stdexcept>
#include <system_error>

#include "core/url.hpp"
#include "file_transport.hpp"
#include "hash/sha256.hpp"
#include "part_file.hpp"
#include "transfer.hpp"
#include "wheel_cache.hpp"

namespace wheelmod::net {

namespace fs = std::filesystem;

std::string_view outcome_text(DownloadOutcome outcome) {
  switch (outcome) {
    case DownloadOutcome::downloaded:
      return "downloaded";
    case DownloadOutcome::resumed:
      return "resumed";
    case DownloadOutcome::present:
      return "present";
    case DownloadOutcome::cached:
      return "cached";
  }
  return "downloaded";
}

namespace {

class MultiHandle {
 public:
  MultiHandle() {
    ensure_curl_initialised();
    m_handle = curl_multi_init();
    if (m_handle == nullptr) throw std::runtime_error("libcurl: curl_multi_init failed");
    // HTTP/2: several transfers as streams of one connection (the
    // default since libcurl 7.62, said here because it matters).
    curl_multi_setopt(m_handle, CURLMOPT_PIPELINING, long{CURLPIPE_MULTIPLEX});
  }
  ~MultiHandle() { curl_multi_cleanup(m_handle); }
  MultiHandle(const MultiHandle&) = delete;
  MultiHandle& operator=(const MultiHandle&) = delete;
  [[nodiscard]] CURLM* get() const { return m_handle; }

 private:
  CURLM* m_handle = nullptr;
};

std::string integrity_hint() {
  return "the file changed on the server or was damaged on the way; nothing was kept. If the "
         "index is stale (it is regenerated hourly), try again later; never install such a file";
}

class Batch {
 public:
  Batch(const std::vector<DownloadRequest>& requests, const DownloadOptions& options,
        Reporter& reporter)
      : m_requests(requests),
        m_options(options),
        m_reporter(reporter),
        m_ca(ca_bundle(options.connection.cacert)) {
    m_result.results.resize(requests.size());
    if (!options.cache_dir.empty()) m_cache.emplace(options.cache_dir);
  }

  DownloadBatch run() {
    for (std::size_t i = 0; i < m_requests.size(); ++i) {
      try {
        if (!settle_without_network(i)) queue_transfer(i);
      } catch (const Error& error) {
        m_result.failures.push_back(error);
      }
    }
    drive_transfers();
    return std::move(m_result);
  }

 private:
  // Present, cached or local: true when the file is settled (or failed)
  // without an HTTP transfer.
  bool settle_without_network(std::size_t index) {
    const auto& request = m_requests[index];
    std::error_code error;
    if (fs::is_regular_file(request.destination, error)) {
      const auto digest = hash::sha256_file(request.destination);
      const auto hex = hash::to_hex(digest.sha256);
      if (!request.sha256 || hex == *request.sha256) {
        record(index, DownloadResult{.path = request.destination,
                                     .sha256 = hex,
                                     .sha256_from_index = request.sha256.has_value(),
                                     .size = digest.size,
                                     .outcome = DownloadOutcome::present,
                                     .received = 0,
                                     .resumed_from = std::nullopt,
                                     .attempts = 0});
        return true;
      }
      m_reporter.on_warning(request.destination.string() + " exists with another SHA-256 (" + hex +
                            "); fetching it again");
    }
    if (m_cache && request.sha256) {
      std::string problem;
      if (const auto placed = m_cache->place(*request.sha256, request.destination, problem)) {
        remove_part(request.destination);
        record(index, DownloadResult{.path = request.destination,
                                     .sha256 = *request.sha256,
                                     .sha256_from_index = true,
                                     .size = placed->size,
                                     .outcome = DownloadOutcome::cached,
                                     .received = 0,
                                     .resumed_from = std::nullopt,
                                     .attempts = 0});
        return true;
      }
      if (!problem.empty()) m_reporter.on_warning(problem);
    }
    if (const auto local = local_path_of(request.url)) {
      copy_local(index, *local);
      return true;
    }
    return false;
  }

  // A file:// URL or a path: copied through the .part, hashed on the way.
  void copy_local(std::size_t index, const fs::path& source) {
    const auto& request = m_requests[index];
    const TaskId task = m_reporter.on_start(request.label, request.size);
    hash::FileDigest digest;
    try {
      digest = copy_hashing(source, part_path(request.destination));
    } catch (const Error& error) {
      remove_part(request.destination);
      m_reporter.on_fail(task, error.cause());
      throw;
    }
    m_reporter.on_progress(task, digest.size);
    verify_and_commit(index, task, hash::to_hex(digest.sha256), digest.size,
                      DownloadOutcome::downloaded, 0, 1);
  }

  void queue_transfer(std::size_t index) {
    const auto& request = m_requests[index];
    if (request.size && *request.size > m_options.max_size) {
      remove_part(request.destination);
      throw over_max_size(request, "the index says " + std::to_string(*request.size) +
                                       " bytes, more than --max-download-size (" +
                                       format_bytes(m_options.max_size) + "); not downloaded");
    }
    auto transfer = std::make_unique<Transfer>(request, index, m_options, m_ca, m_reporter);
    // Resume only what this URL left: the validator is that server's word
    // for that file, and is meaningless for another.
    if (const auto leftover = find_leftover(request.destination);
        leftover && leftover->info.url == mask_credentials(request.url) && leftover->bytes > 0 &&
        (!leftover->info.size || leftover->bytes <= *leftover->info.size) &&
        leftover->bytes <= m_options.max_size) {
      transfer->adopt_leftover(leftover->bytes, leftover->info.validator, leftover->info.size);
    } else {
      remove_part(request.destination);
    }
    m_waiting.push_back(transfer.get());
    m_transfers.push_back(std::move(transfer));
  }

  void drive_transfers() {
    MultiHandle multi;
    std::size_t active = 0;
    while (!m_waiting.empty() || active > 0) {
      const auto now = SteadyClock::now();
      for (auto it = m_waiting.begin(); it != m_waiting.end() && active < m_options.jobs;) {
        Transfer* transfer = *it;
        if (transfer->not_before() > now) {
          ++it;
          continue;
        }
        it = m_waiting.erase(it);
        if (transfer->part_is_complete()) {
          finish(*transfer);
          continue;
        }
        try {
          curl_multi_add_handle(multi.get(), transfer->begin_attempt());
          ++active;
        } catch (const Error& error) {
          fail(*transfer, error);
        }
      }
      int running = 0;
      curl_multi_perform(multi.get(), &running);
      int queued = 0;
      while (CURLMsg* message = curl_multi_info_read(multi.get(), &queued)) {
        if (message->msg != CURLMSG_DONE) continue;
        void* owner = nullptr;
        curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, &owner);
        const CURLcode code = message->data.result;
        curl_multi_remove_handle(multi.get(), message->easy_handle);
        --active;
        settle_attempt(*static_cast<Transfer*>(owner), code);
      }
      if (m_waiting.empty() && active == 0) break;
      curl_multi_poll(multi.get(), nullptr, 0, poll_timeout_ms(active), nullptr);
    }
  }

  // How long the loop may sleep in poll: until the next waiting transfer
  // is due, at most a second (so stall checks run while nothing arrives).
  int poll_timeout_ms(std::size_t active) const {
    auto timeout = std::chrono::milliseconds(1000);
    if (active < m_options.jobs) {
      const auto now = SteadyClock::now();
      for (const Transfer* transfer : m_waiting) {
        const auto due =
            std::chrono::duration_cast<std::chrono::milliseconds>(transfer->not_before() - now);
        timeout = std::min(timeout, std::max(due, std::chrono::milliseconds(0)));
      }
    }
    return static_cast<int>(timeout.count());
  }

  void settle_attempt(Transfer& transfer, CURLcode code) {
    switch (transfer.end_attempt(code)) {
      case AttemptVerdict::complete:
        finish(transfer);
        break;
      case AttemptVerdict::retry:
        m_waiting.push_back(&transfer);
        break;
      case AttemptVerdict::failed:
        fail(transfer, *transfer.failure());
        break;
    }
  }

  void finish(Transfer& transfer) {
    const auto& request = transfer.request();
    try {
      const std::string digest = transfer.finish_hash();
      std::error_code error;
      const auto size = fs::file_size(part_path(request.destination), error);
      if (request.sha256 && digest != *request.sha256 && transfer.continued_a_part() &&
          !m_restarted.contains(transfer.index())) {
        // The bytes were joined from two requests (or two runs); a file
        // replaced in between with no validator to tell would show up
        // here. One fresh, whole download settles it.
        m_restarted.insert(transfer.index());
        m_reporter.on_warning(request.label +
                              ": the resumed file does not verify; downloading "
                              "it again from the start");
        transfer.restart();
        m_waiting.push_back(&transfer);
        return;
      }
      verify_and_commit(
          transfer.index(), transfer.task(), digest, error ? 0 : size,
          transfer.resumed_from() ? DownloadOutcome::resumed : DownloadOutcome::downloaded,
          transfer.received(), transfer.attempts(), transfer.resumed_from());
    } catch (const Error& error) {
      m_result.failures.push_back(error);
    }
    m_result.received += transfer.received();
  }

  void fail(Transfer& transfer, const Error& error) {
    m_reporter.on_fail(transfer.task(), error.cause());
    m_result.failures.push_back(error);
    m_result.received += transfer.received();
  }

  // The .part holds the whole file: compare its digest with the index's,
  // then rename it into place and keep it in the cache.
  void verify_and_commit(std::size_t index, TaskId task, const std::string& digest,
                         std::uint64_t size, DownloadOutcome outcome, std::uint64_t received,
                         unsigned attempts,
                         std::optional<std::uint64_t> resumed_from = std::nullopt) {
    const auto& request = m_requests[index];
    if (request.sha256 && digest != *request.sha256) {
      remove_part(request.destination);
      m_reporter.on_fail(task, "SHA-256 mismatch");
      throw IntegrityError(mask_credentials(request.url), "SHA-256 mismatch: the file was not kept",
                           integrity_hint())
          .with_detail("the index says " + *request.sha256)
          .with_detail("the file has   " + digest + " (" + std::to_string(size) + " bytes)");
    }
    commit_part(request.destination);
    if (!request.sha256)
      m_reporter.on_warning(request.label + ": the index gives no SHA-256; computed " + digest +
                            " (recorded, but nothing vouches for it)");
    if (m_cache) {
      if (auto problem = m_cache->store(request.destination, digest); !problem.empty())
        m_reporter.on_warning(problem);
    }
    m_reporter.on_finish(task, request.sha256 ? "verified" : "sha256 computed");
    record(index, DownloadResult{.path = request.destination,
                                 .sha256 = digest,
                                 .sha256_from_index = request.sha256.has_value(),
                                 .size = size,
                                 .outcome = outcome,
                                 .received = received,
                                 .resumed_from = resumed_from,
                                 .attempts = attempts});
  }

  void record(std::size_t index, DownloadResult result) {
    m_result.results[index] = std::move(result);
  }

  const std::vector<DownloadRequest>& m_requests;
  const DownloadOptions& m_options;
  Reporter& m_reporter;
  std::string m_ca;
  std::optional<WheelCache> m_cache;
  std::vector<std::unique_ptr<Transfer>> m_transfers;
  std::deque<Transfer*> m_waiting;
  std::set<std::size_t> m_restarted;
  DownloadBatch m_result;
};

}  // namespace

DownloadBatch download_all(const std::vector<DownloadRequest>& requests,
                           const DownloadOptions& options, Reporter& reporter) {
  std::set<fs::path> destinations;
  for (const auto& request : requests)
    if (!destinations.insert(request.destination.lexically_normal()).second)
      throw std::invalid_argument("download_all: two requests for " + request.destination.string());
  DownloadOptions checked = options;
  checked.jobs = std::max(checked.jobs, 1U);
  checked.attempts = std::max(checked.attempts, 1U);
  return Batch(requests, checked, reporter).run();
}

Error combined_failure(const DownloadBatch& batch) {
  if (batch.failures.size() == 1) return batch.failures.front();
  const bool integrity = std::ranges::any_of(
      batch.failures, [](const Error& error) { return error.code() == ExitCode::integrity; });
  // The causes' own hints first (each once: three files behind one bad
  // certificate need one hint), then what to do about the batch.
  std::vector<std::string> hints;
  for (const auto& failure : batch.failures)
    if (!failure.hint().empty() && std::ranges::find(hints, failure.hint()) == hints.end())
      hints.push_back(failure.hint());
  std::string hint;
  for (const auto& text : hints) hint += text + "; ";
  hint +=
      "the files that arrived are in place: run the same command again to retry the rest "
      "(finished files are not downloaded twice)";
  Error combined(integrity ? ExitCode::integrity : ExitCode::io,
                 std::to_string(batch.failures.size()) + " of " +
                     std::to_string(batch.results.size()) + " files",
                 "could not be fetched", hint);
  for (const auto& failure : batch.failures)
    combined.with_detail(failure.subject() + ": " + failure.cause());
  return combined;
}

}  // namespace wheelmod::net
