// download_all: for each file, the cheapest way to a verified copy — it is
// already there, the cache has it, a local file is copied, or it comes
// over HTTP — with the HTTP transfers driven `jobs` at a time by libcurl
// multi loops on a few threads ("lanes"; transfer.cpp does the per-file
// protocol work).
#include "net/download.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "core/parallel.hpp"
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
    // default since libcurl 7.62, said here because it matters). Over
    // HTTP/1.1 each transfer gets a connection of its own: nothing sets
    // CURLMOPT_MAX_HOST_CONNECTIONS, whose default 0 means no limit
    // (https://curl.se/libcurl/c/CURLMOPT_MAX_HOST_CONNECTIONS.html);
    // `jobs` bounds the transfers added at once.
    curl_multi_setopt(m_handle, CURLMOPT_PIPELINING, long{CURLPIPE_MULTIPLEX});
  }
  ~MultiHandle() { curl_multi_cleanup(m_handle); }
  MultiHandle(const MultiHandle&) = delete;
  MultiHandle& operator=(const MultiHandle&) = delete;
  [[nodiscard]] CURLM* get() const { return m_handle; }

 private:
  CURLM* m_handle = nullptr;
};

// One thread's libcurl multi handle and what it drives. A multi handle
// belongs to one thread, and one thread receiving every stream (and
// copying it out for the writers) was the ceiling of `--jobs` over
// HTTP/1.1: on loopback, 2 cores, 4 transfers in one thread reached
// 0.7-0.8x the throughput of 4 curl processes, in two threads 0.87-1.0x
// (tests/bench/README.md). So HTTP/1.1 transfers, one connection each, are
// spread over up to min(jobs, cores) lanes; transfers that may share an
// HTTP/2 connection stay together on lane 0, whose multi handle holds
// that connection.
struct Lane {
  MultiHandle multi;
  bool takes_multiplexed = false;
  std::size_t own = 0;  // transfers that cannot be multiplexed, in `multi` now
};

// Enough threads to receive at full speed on any link; more would only wait.
constexpr std::size_t k_max_lanes = 8;

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
        add_failure(error);
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
    if (m_waiting.empty()) return;
    const auto multiplexed =
        static_cast<std::size_t>(std::ranges::count_if(m_waiting, [](const Transfer* transfer) {
          return may_multiplex(transfer->request().url);
        }));
    const std::size_t lanes = std::clamp<std::size_t>(
        std::min<std::size_t>({std::thread::hardware_concurrency(), m_options.jobs, k_max_lanes,
                               m_waiting.size() - multiplexed}),
        1, k_max_lanes);
    m_per_lane = (m_options.jobs + lanes - 1) / lanes;
    for (std::size_t i = 0; i < lanes; ++i) m_lanes.push_back(std::make_unique<Lane>());
    m_lanes.front()->takes_multiplexed = true;
    // A lane whose thread could not be started never takes work: the others take it all.
    run_in_parallel(lanes, [this](std::size_t i) { drive_lane(*m_lanes[i]); });
    m_lanes.clear();
    if (m_crash) std::rethrow_exception(m_crash);
  }

  // One lane's loop: take what it may from the waiting transfers, run its
  // multi handle, settle what ended; until nothing waits or runs anywhere.
  void drive_lane(Lane& lane) {
    try {
      for (;;) {
        std::vector<Transfer*> started;
        std::vector<std::pair<Transfer*, Error>> refused;
        {
          const std::lock_guard lock(m_mutex);
          if (m_stop || (m_waiting.empty() && m_active == 0)) break;
          const auto now = SteadyClock::now();
          for (auto it = m_waiting.begin(); it != m_waiting.end() && m_active < m_options.jobs;) {
            Transfer* transfer = *it;
            if (transfer->not_before() > now || !can_take(lane, *transfer)) {
              ++it;
              continue;
            }
            it = m_waiting.erase(it);
            hold(lane, *transfer, +1);
            if (transfer->part_is_complete()) {
              started.push_back(transfer);
              continue;
            }
            // Under the lock: begin_attempt reports the start, and a
            // Reporter need not count its tasks atomically.
            try {
              curl_multi_add_handle(lane.multi.get(), transfer->begin_attempt());
            } catch (const Error& error) {
              refused.emplace_back(transfer, error);
            }
          }
        }
        for (Transfer* transfer : started) {
          finish(*transfer);
          release(lane, *transfer);
        }
        for (auto& [transfer, error] : refused) {
          fail(*transfer, error);
          release(lane, *transfer);
        }
        int running = 0;
        curl_multi_perform(lane.multi.get(), &running);
        int queued = 0;
        while (CURLMsg* message = curl_multi_info_read(lane.multi.get(), &queued)) {
          if (message->msg != CURLMSG_DONE) continue;
          void* owner = nullptr;
          curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, &owner);
          const CURLcode code = message->data.result;
          curl_multi_remove_handle(lane.multi.get(), message->easy_handle);
          auto& transfer = *static_cast<Transfer*>(owner);
          settle_attempt(transfer, code);
          release(lane, transfer);
        }
        const int timeout = poll_timeout_ms(lane);
        if (timeout < 0) break;  // all done: no idle poll after the last transfer
        curl_multi_poll(lane.multi.get(), nullptr, 0, timeout, nullptr);
      }
    } catch (...) {
      // A bug or an allocation failure: every lane stops, the caller throws it.
      const std::lock_guard lock(m_mutex);
      if (!m_crash) m_crash = std::current_exception();
      m_stop = true;
      wake_lanes(lane);
    }
  }

  // Whether `lane` may start `transfer` now (the caller holds m_mutex).
  bool can_take(const Lane& lane, const Transfer& transfer) const {
    if (may_multiplex(transfer.request().url)) return lane.takes_multiplexed;
    return lane.own < m_per_lane;
  }

  // `transfer` joins (+1) or leaves (-1) `lane` (the caller holds m_mutex).
  void hold(Lane& lane, const Transfer& transfer, int change) {
    const bool counted = !may_multiplex(transfer.request().url);
    if (change > 0) {
      ++m_active;
      if (counted) ++lane.own;
    } else {
      --m_active;
      if (counted) --lane.own;
    }
  }

  // `transfer` is settled (done, failed, or back in m_waiting): its slot
  // is free, and the lanes asleep in poll look for work again.
  void release(Lane& lane, const Transfer& transfer) {
    const std::lock_guard lock(m_mutex);
    hold(lane, transfer, -1);
    wake_lanes(lane);
  }

  void requeue(Transfer& transfer) {
    const std::lock_guard lock(m_mutex);
    m_waiting.push_back(&transfer);
  }

  // curl_multi_wakeup may be called from any thread
  // (https://curl.se/libcurl/c/curl_multi_wakeup.html).
  void wake_lanes(const Lane& self) {
    for (const auto& lane : m_lanes)
      if (lane.get() != &self) curl_multi_wakeup(lane->multi.get());
  }

  // How long a lane may sleep in poll: until the next waiting transfer it
  // could start is due, at most a second (so stall checks run while
  // nothing arrives). Other lanes wake it when a slot frees. -1: nothing
  // waits or runs any more, in any lane.
  int poll_timeout_ms(const Lane& lane) {
    auto timeout = std::chrono::milliseconds(1000);
    const std::lock_guard lock(m_mutex);
    if (m_stop || (m_waiting.empty() && m_active == 0)) return -1;
    if (m_active < m_options.jobs) {
      const auto now = SteadyClock::now();
      for (const Transfer* transfer : m_waiting) {
        if (!can_take(lane, *transfer)) continue;
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
        requeue(transfer);
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
          first_restart(transfer.index())) {
        // The bytes were joined from two requests (or two runs); a file
        // replaced in between with no validator to tell would show up
        // here. One fresh, whole download settles it.
        m_reporter.on_warning(request.label +
                              ": the resumed file does not verify; downloading "
                              "it again from the start");
        transfer.restart();
        requeue(transfer);
        return;
      }
      verify_and_commit(
          transfer.index(), transfer.task(), digest, error ? 0 : size,
          transfer.resumed_from() ? DownloadOutcome::resumed : DownloadOutcome::downloaded,
          transfer.received(), transfer.attempts(), transfer.resumed_from());
    } catch (const Error& error) {
      add_failure(error);
    }
    add_received(transfer.received());
  }

  void fail(Transfer& transfer, const Error& error) {
    m_reporter.on_fail(transfer.task(), error.cause());
    add_failure(error);
    add_received(transfer.received());
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

  // The results, written by every lane.
  void record(std::size_t index, DownloadResult result) {
    const std::lock_guard lock(m_mutex);
    m_result.results[index] = std::move(result);
  }
  void add_failure(const Error& error) {
    const std::lock_guard lock(m_mutex);
    m_result.failures.push_back(error);
  }
  void add_received(std::uint64_t bytes) {
    const std::lock_guard lock(m_mutex);
    m_result.received += bytes;
  }
  bool first_restart(std::size_t index) {
    const std::lock_guard lock(m_mutex);
    return m_restarted.insert(index).second;
  }

  const std::vector<DownloadRequest>& m_requests;
  const DownloadOptions& m_options;
  Reporter& m_reporter;
  std::string m_ca;
  std::optional<WheelCache> m_cache;
  std::vector<std::unique_ptr<Transfer>> m_transfers;

  // Shared by the lanes, under m_mutex (the Transfers themselves are each
  // driven by one lane at a time: the one that took it from m_waiting).
  std::mutex m_mutex;
  std::deque<Transfer*> m_waiting;
  std::size_t m_active = 0;  // transfers the lanes hold, attempting or settling
  std::set<std::size_t> m_restarted;
  DownloadBatch m_result;
  std::vector<std::unique_ptr<Lane>> m_lanes;
  std::size_t m_per_lane = 1;  // transfers that cannot be multiplexed, per lane
  bool m_stop = false;
  std::exception_ptr m_crash;
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
