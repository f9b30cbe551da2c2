// download_all against real servers on 127.0.0.1: nginx over the sample
// index for the plain case, fault_server.py for broken transfers (drops,
// resets, short and wrong bodies, stalls, 5xx/429, ignored ranges, changing
// ETags). Every fault must end in a verified file or in a clean failure
// with nothing at the destination. Expected bytes come from the files on
// disk or, for generated files, from the server's /gensha.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/reporter.hpp"
#include "net/download.hpp"
#include "net/fetcher.hpp"
#include "net_support.hpp"

using wheelmod::ExitCode;
using wheelmod::NullReporter;
using wheelmod::net::DownloadBatch;
using wheelmod::net::DownloadOptions;
using wheelmod::net::DownloadOutcome;
using wheelmod::net::DownloadRequest;
using wheelmod::net::DownloadResult;
using namespace net_test;

namespace {

/// A wheel of the sample index: where it lies under whl/, its bytes, digest.
struct Wheel {
  std::string relative;  // under whl/, as on disk ('+' literal)
  std::string bytes;
  std::string sha256;

  [[nodiscard]] std::string name() const { return fs::path(relative).filename().string(); }
  [[nodiscard]] std::uint64_t size() const { return bytes.size(); }
  /// The path under whl/ in a URL: '+' as %2B, as the index pages write it.
  [[nodiscard]] std::string encoded() const {
    std::string text;
    for (const char c : relative) text += c == '+' ? std::string("%2B") : std::string(1, c);
    return text;
  }
  [[nodiscard]] std::string nginx_url() const { return servers().nginx + "/" + encoded(); }
  /// The fault server's URL behind `faults` (prefixes such as "/once/drop/1/TOKEN").
  [[nodiscard]] std::string fault_url(const std::string& faults = "") const {
    return servers().fault + faults + "/whl/" + encoded();
  }
};

Wheel sample_wheel(const std::string& relative) {
  Wheel wheel{relative, read_file(k_sample / "whl" / relative), {}};
  wheel.sha256 = sha256_hex(wheel.bytes);
  return wheel;
}

// The largest sample wheels, so that halves and resumptions are kilobytes.
const std::string k_rocm_torch =
    "rocm6.2.4/torch-2.6.0+rocm6.2.4-cp312-cp312-manylinux_2_28_x86_64.whl";
const std::string k_cu124_torch = "cu124/torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl";
const std::string k_cu124_vision = "cu124/torchvision-0.21.0+cu124-cp312-cp312-linux_x86_64.whl";
const std::string k_cpu_audio = "cpu/torchaudio-2.6.0+cpu-cp312-cp312-linux_x86_64.whl";
const std::string k_networkx = "networkx-3.4.2-py3-none-any.whl";

/// Quick retries and short stall limits: the behaviour, not the waiting, is under test.
DownloadOptions fast(unsigned attempts = 3) {
  DownloadOptions options;
  options.jobs = 2;
  options.attempts = attempts;
  options.connection.backoff = std::chrono::milliseconds(10);
  options.connection.connect_timeout = std::chrono::seconds(5);
  options.connection.stall_timeout = std::chrono::seconds(1);
  return options;
}

DownloadRequest request_for(const Wheel& wheel, std::string url, const fs::path& dir) {
  DownloadRequest request;
  request.url = std::move(url);
  request.destination = dir / wheel.name();
  request.sha256 = wheel.sha256;
  request.size = wheel.size();
  request.label = wheel.name();
  return request;
}

DownloadBatch download(const std::vector<DownloadRequest>& requests,
                       const DownloadOptions& options) {
  NullReporter reporter;
  auto batch = wheelmod::net::download_all(requests, options, reporter);
  REQUIRE(batch.results.size() == requests.size());
  for (const auto& failure : batch.failures) UNSCOPED_INFO("failure: " << failure.render());
  return batch;
}

/// The one result of a one-file batch, which must have succeeded.
DownloadResult only_result(const DownloadBatch& batch) {
  REQUIRE(batch.failures.empty());
  REQUIRE(batch.results.size() == 1);
  REQUIRE(batch.results[0].has_value());
  return *batch.results[0];
}

/// The one failure of a one-file batch.
wheelmod::Error only_failure(const DownloadBatch& batch) {
  REQUIRE(batch.results.size() == 1);
  CHECK_FALSE(batch.results[0].has_value());
  REQUIRE(batch.failures.size() == 1);
  return batch.failures[0];
}

/// The names in `dir` (to see that no .part or temporary file is left).
std::set<std::string> names_in(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir))
    names.insert(entry.path().filename().string());
  return names;
}

/// `result` is `wheel`, verified, at `path`.
void check_verified(const DownloadResult& result, const Wheel& wheel, const fs::path& path) {
  CHECK(result.path == path);
  CHECK(result.sha256 == wheel.sha256);
  CHECK(result.size == wheel.size());
  CHECK(read_file(path) == wheel.bytes);
}

/// What the fault server saw of the requests that carried `token`.
nlohmann::json server_log(const std::string& token) {
  wheelmod::net::FetcherOptions options;
  options.attempts = 1;
  wheelmod::net::Fetcher fetcher(options);
  return nlohmann::json::parse(fetcher.get(servers().fault + "/log/" + token).body);
}

std::string server_text(const std::string& path) {
  wheelmod::net::Fetcher fetcher;
  return fetcher.get(servers().fault + path).body;
}

/// The bytes fault_server.py's `wrong` sends: 16 bytes from the middle inverted.
std::string corrupted(std::string bytes) {
  const std::size_t middle = bytes.size() / 2;
  for (std::size_t i = middle; i < std::min(middle + 16, bytes.size()); ++i)
    bytes[i] = static_cast<char>(~static_cast<unsigned char>(bytes[i]));
  return bytes;
}

std::uint64_t sent_by(const nlohmann::json& entry) { return entry.at("sent").get<std::uint64_t>(); }

}  // namespace

TEST_CASE("download_all fetches a batch from nginx, then finds it present", "[net][download]") {
  const Wheel wheels[] = {sample_wheel(k_cu124_torch), sample_wheel(k_cpu_audio),
                          sample_wheel(k_networkx), sample_wheel(k_cu124_vision)};
  // The digests are the ones the index announces.
  CHECK_THAT(rendered_page("cu124/torch"), Catch::Contains("#sha256=" + wheels[0].sha256));
  TempDir dir;
  std::vector<DownloadRequest> requests;
  std::uint64_t total = 0;
  std::set<std::string> expected_names;
  for (const auto& wheel : wheels) {
    requests.push_back(request_for(wheel, wheel.nginx_url(), dir.path()));
    total += wheel.size();
    expected_names.insert(wheel.name());
  }
  requests[2].size.reset();  // the index need not give a size

  const auto first = download(requests, fast());
  REQUIRE(first.failures.empty());
  CHECK(first.received == total);
  for (std::size_t i = 0; i < std::size(wheels); ++i) {
    CAPTURE(wheels[i].name());
    REQUIRE(first.results[i]);
    const auto& result = *first.results[i];
    check_verified(result, wheels[i], requests[i].destination);
    CHECK(result.outcome == DownloadOutcome::downloaded);
    CHECK(result.received == wheels[i].size());
    CHECK(result.attempts == 1);
    CHECK_FALSE(result.resumed_from);
    CHECK(result.sha256_from_index);
  }
  CHECK(names_in(dir.path()) == expected_names);

  const auto second = download(requests, fast());
  REQUIRE(second.failures.empty());
  CHECK(second.received == 0);
  for (std::size_t i = 0; i < std::size(wheels); ++i) {
    CAPTURE(wheels[i].name());
    REQUIRE(second.results[i]);
    check_verified(*second.results[i], wheels[i], requests[i].destination);
    CHECK(second.results[i]->outcome == DownloadOutcome::present);
    CHECK(second.results[i]->received == 0);
    CHECK(second.results[i]->attempts == 0);
  }
  CHECK(names_in(dir.path()) == expected_names);
}

TEST_CASE("download_all resumes a broken transfer with Range and If-Range", "[net][download]") {
  const auto wheel = sample_wheel(k_rocm_torch);
  struct Case {
    const char* fault;
    std::uint64_t first_sent;  // what fault_server.py sends before breaking off
  };
  const Case cases[] = {
      {"drop", wheel.size() / 2},    // then a clean close
      {"reset", wheel.size() / 2},   // then a TCP reset
      {"short", wheel.size() - 64},  // fewer bytes than Content-Length, clean close
  };
  for (const auto& c : cases) {
    CAPTURE(c.fault);
    TempDir dir;
    const auto token = unique_token();
    const auto url = wheel.fault_url(std::string("/once/") + c.fault + "/1/" + token);
    const auto request = request_for(wheel, url, dir.path());
    const auto result = only_result(download({request}, fast()));
    check_verified(result, wheel, request.destination);
    // Completed within this run: not a .part of an earlier one.
    CHECK(result.outcome == DownloadOutcome::downloaded);
    CHECK_FALSE(result.resumed_from);
    CHECK(result.attempts == 2);
    CHECK(result.received == wheel.size());  // nothing fetched twice
    CHECK(names_in(dir.path()) == std::set<std::string>{wheel.name()});

    const auto log = server_log(token);
    INFO("server log: " << log.dump());
    REQUIRE(log.size() == 2);
    CHECK(sent_by(log[0]) == c.first_sent);
    CHECK(log[0].at("range").is_null());
    // After a clean close the client has every byte the server sent. A
    // reset may discard what was still unread in the client's socket
    // buffer (RFC 9293 §3.10.7.4: on RST, queued data is dropped), so
    // there the resume point is at most what was sent.
    std::uint64_t resumed_at = c.first_sent;
    if (std::string_view(c.fault) == "reset") {
      if (log[1].at("range").is_null()) {
        CHECK(log[1].at("status") == 200);  // nothing had been read: start over
        continue;
      }
      const auto range = log[1].at("range").get<std::string>();
      REQUIRE(range.starts_with("bytes="));
      resumed_at = std::stoull(range.substr(6));
      CHECK(resumed_at <= c.first_sent);
    }
    CHECK(log[1].at("range") == "bytes=" + std::to_string(resumed_at) + "-");
    CHECK(log[1].at("if_range") == log[0].at("etag"));
    CHECK(log[1].at("status") == 206);
    CHECK(sent_by(log[1]) == wheel.size() - resumed_at);
  }
}

TEST_CASE("download_all retries 5xx and 429, honouring Retry-After", "[net][download]") {
  const auto wheel = sample_wheel(k_cu124_torch);
  struct Case {
    const char* status;
    unsigned failures;
    std::chrono::milliseconds at_least;  // what Retry-After asks for, in all
  };
  const Case cases[] = {
      {"500", 2, std::chrono::milliseconds(0)},
      {"503", 2, std::chrono::milliseconds(0)},    // Retry-After: 0
      {"429", 1, std::chrono::milliseconds(950)},  // Retry-After: 1, backoff is 10 ms
  };
  for (const auto& c : cases) {
    CAPTURE(c.status);
    TempDir dir;
    const auto token = unique_token();
    const auto url = wheel.fault_url(std::string("/once/") + c.status + "/" +
                                     std::to_string(c.failures) + "/" + token);
    const auto request = request_for(wheel, url, dir.path());
    const auto start = std::chrono::steady_clock::now();
    const auto result = only_result(download({request}, fast(4)));
    const auto waited = std::chrono::steady_clock::now() - start;
    check_verified(result, wheel, request.destination);
    CHECK(result.outcome == DownloadOutcome::downloaded);
    CHECK(result.attempts == c.failures + 1);
    // The error bodies ("status 503\n") may count as received; the wheel once.
    CHECK(result.received >= wheel.size());
    CHECK(result.received < wheel.size() + 16 * c.failures);
    CHECK(waited >= c.at_least);
    CHECK(waited < std::chrono::seconds(5));
    CHECK(names_in(dir.path()) == std::set<std::string>{wheel.name()});
    CHECK(server_log(token).size() == c.failures + 1);
  }
}

TEST_CASE("download_all rejects wrong bytes with both digests and leaves nothing",
          "[net][download]") {
  const auto wheel = sample_wheel(k_cu124_torch);
  const auto wrong_sha = sha256_hex(corrupted(wheel.bytes));
  REQUIRE(wrong_sha != wheel.sha256);
  TempDir dir;
  const auto url = wheel.fault_url("/wrong");
  const auto batch = download({request_for(wheel, url, dir.path())}, fast(2));
  const auto error = only_failure(batch);
  CHECK(error.code() == ExitCode::integrity);
  const auto text = error.render();
  CAPTURE(text);
  CHECK_THAT(text,
             Catch::Contains(wheel.sha256) && Catch::Contains(wrong_sha) && Catch::Contains(url));
  CHECK(batch.received >= wheel.size());
  // Bytes proved wrong: neither the file nor a .part to resume from.
  CHECK(names_in(dir.path()).empty());
  CHECK(wheelmod::net::combined_failure(batch).code() == ExitCode::integrity);
}

TEST_CASE("download_all gives up on a stalled transfer and names it", "[net][download]") {
  const auto wheel = sample_wheel(k_cu124_torch);
  TempDir dir;
  const auto url = wheel.fault_url("/stall");
  const auto request = request_for(wheel, url, dir.path());
  const auto start = std::chrono::steady_clock::now();
  const auto batch = download({request}, fast(2));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(8));
  const auto error = only_failure(batch);
  CHECK(error.code() == ExitCode::io);
  const auto text = error.render();
  CAPTURE(text);
  CHECK_THAT(text, Catch::Contains(url) && Catch::Contains("stalled"));
  CHECK_FALSE(fs::exists(request.destination));
  // A .part may stay for a later run; it holds only bytes the server sent.
  if (fs::exists(request.destination.string() + ".part")) {
    const auto part = read_file(request.destination.string() + ".part");
    CHECK(part == wheel.bytes.substr(0, part.size()));
  }
  const auto combined = wheelmod::net::combined_failure(batch);
  CHECK(combined.code() == ExitCode::io);
  CHECK(combined.render() == text);  // the only failure, as it is
}

TEST_CASE("download_all completes the .part an earlier run left", "[net][download]") {
  const auto wheel = sample_wheel(k_rocm_torch);
  TempDir dir;
  const auto token = unique_token();
  // The same URL both runs; only its first request stalls after half the body.
  const auto url = wheel.fault_url("/once/stall/1/" + token);
  const auto request = request_for(wheel, url, dir.path());
  const fs::path part = request.destination.string() + ".part";

  const auto failed = download({request}, fast(1));
  CHECK(only_failure(failed).code() == ExitCode::io);
  CHECK_FALSE(fs::exists(request.destination));
  REQUIRE(fs::exists(part));
  const auto kept = fs::file_size(part);
  CHECK(kept == wheel.size() / 2);
  CHECK(read_file(part) == wheel.bytes.substr(0, kept));

  const auto result = only_result(download({request}, fast()));
  check_verified(result, wheel, request.destination);
  CHECK(result.outcome == DownloadOutcome::resumed);
  CHECK(result.resumed_from == kept);
  CHECK(result.received == wheel.size() - kept);
  CHECK(result.attempts == 1);
  CHECK(names_in(dir.path()) == std::set<std::string>{wheel.name()});

  const auto log = server_log(token);
  INFO("server log: " << log.dump());
  REQUIRE(log.size() == 2);
  CHECK(log[1].at("range") == "bytes=" + std::to_string(kept) + "-");
  CHECK(log[1].at("if_range") == log[0].at("etag"));
  CHECK(log[1].at("status") == 206);
}

TEST_CASE("download_all starts over when the server will not resume", "[net][download]") {
  const auto wheel = sample_wheel(k_rocm_torch);
  struct Case {
    const char* label;
    std::string prefix;  // before the dropping first request
  };
  const Case cases[] = {
      {"Range ignored", "/norange"},
      // A new ETag every time: If-Range never matches, so 200 and the whole body.
      {"validator changed", "/newetag/" + unique_token()},
  };
  for (const auto& c : cases) {
    CAPTURE(c.label);
    TempDir dir;
    const auto token = unique_token();
    const auto url = wheel.fault_url(c.prefix + "/once/drop/1/" + token);
    const auto request = request_for(wheel, url, dir.path());
    const auto result = only_result(download({request}, fast()));
    check_verified(result, wheel, request.destination);
    CHECK(result.outcome == DownloadOutcome::downloaded);
    CHECK(result.attempts == 2);
    const auto partial = wheel.size() / 2;
    CHECK(result.received == wheel.size() + partial);
    CHECK(names_in(dir.path()) == std::set<std::string>{wheel.name()});

    const auto log = server_log(token);
    INFO("server log: " << log.dump());
    REQUIRE(log.size() == 2);
    CHECK(sent_by(log[0]) == partial);
    CHECK(log[1].at("status") == 200);
    CHECK(sent_by(log[1]) == wheel.size());
    if (c.prefix != "/norange") {  // a server announcing no ranges need not be asked
      CHECK(log[1].at("range") == "bytes=" + std::to_string(partial) + "-");
      CHECK(log[1].at("if_range") == log[0].at("etag"));
      CHECK(log[1].at("etag") != log[0].at("etag"));
    }
  }
}

TEST_CASE("download_all computes the digest the index did not give", "[net][download]") {
  const auto wheel = sample_wheel(k_cpu_audio);
  TempDir dir;
  auto request = request_for(wheel, wheel.nginx_url(), dir.path());
  request.sha256.reset();
  const auto result = only_result(download({request}, fast()));
  check_verified(result, wheel, request.destination);
  CHECK_FALSE(result.sha256_from_index);
  CHECK(result.outcome == DownloadOutcome::downloaded);
}

TEST_CASE("download_all links from the cache and refetches a corrupt entry", "[net][download]") {
  const auto wheel = sample_wheel(k_cu124_vision);
  TempDir cache;
  TempDir a;
  TempDir b;
  TempDir c;
  auto options = fast();
  options.cache_dir = cache.path();
  const auto url = wheel.nginx_url();

  const auto first = only_result(download({request_for(wheel, url, a.path())}, options));
  check_verified(first, wheel, a.path() / wheel.name());
  CHECK(first.outcome == DownloadOutcome::downloaded);
  const auto entry = cache.path() / "wheels" / "sha256" / wheel.sha256.substr(0, 2) / wheel.sha256;
  REQUIRE(fs::exists(entry));
  CHECK(read_file(entry) == wheel.bytes);

  const auto second = only_result(download({request_for(wheel, url, b.path())}, options));
  check_verified(second, wheel, b.path() / wheel.name());
  CHECK(second.outcome == DownloadOutcome::cached);
  CHECK(second.received == 0);
  CHECK(second.attempts == 0);

  // Corrupt the entry in place, as a bad disk would.
  fs::permissions(entry, fs::perms::owner_write, fs::perm_options::add);
  {
    std::fstream file(entry, std::ios::in | std::ios::out | std::ios::binary);
    REQUIRE(file);
    file.seekp(static_cast<std::streamoff>(wheel.size() / 2));
    file.write("CORRUPT!", 8);
  }
  REQUIRE(read_file(entry) != wheel.bytes);
  const auto third = only_result(download({request_for(wheel, url, c.path())}, options));
  check_verified(third, wheel, c.path() / wheel.name());
  CHECK(third.outcome == DownloadOutcome::downloaded);
  CHECK(third.received == wheel.size());
  CHECK(names_in(c.path()) == std::set<std::string>{wheel.name()});
  // The bad entry is gone or repaired.
  if (fs::exists(entry)) CHECK(read_file(entry) == wheel.bytes);
}

TEST_CASE("download_all fetches a large file alongside small ones", "[net][download]") {
  constexpr std::uint64_t k_size = 48ULL << 20;
  const std::string big_name = "big-1.0-py3-none-any.whl";
  const auto big_sha = server_text("/gensha/" + std::to_string(k_size) + "/7");
  REQUIRE(big_sha.size() == 64);
  const Wheel small[] = {sample_wheel(k_cu124_torch), sample_wheel(k_networkx),
                         sample_wheel(k_cpu_audio)};
  TempDir dir;
  std::vector<DownloadRequest> requests;
  DownloadRequest big;
  big.url = servers().fault + "/gen/" + std::to_string(k_size) + "/7/" + big_name;
  big.destination = dir.path() / big_name;
  big.sha256 = big_sha;
  big.size = k_size;
  big.label = big_name;
  requests.push_back(big);
  requests.push_back(request_for(small[0], small[0].nginx_url(), dir.path()));
  requests.push_back(request_for(small[1], small[1].fault_url(), dir.path()));
  requests.push_back(request_for(small[2], small[2].nginx_url(), dir.path()));
  auto options = fast();
  options.jobs = 4;

  const auto batch = download(requests, options);
  REQUIRE(batch.failures.empty());
  REQUIRE(batch.results[0]);
  CHECK(batch.results[0]->sha256 == big_sha);
  CHECK(batch.results[0]->size == k_size);
  CHECK(fs::file_size(big.destination) == k_size);
  CHECK(wheelmod::hash::to_hex(wheelmod::hash::sha256_file(big.destination).sha256) == big_sha);
  std::uint64_t total = k_size;
  for (std::size_t i = 0; i < std::size(small); ++i) {
    CAPTURE(small[i].name());
    REQUIRE(batch.results[i + 1]);
    check_verified(*batch.results[i + 1], small[i], requests[i + 1].destination);
    total += small[i].size();
  }
  CHECK(batch.received == total);
  CHECK(names_in(dir.path()).size() == 4);
}

TEST_CASE("download_all keeps going when one file fails for good", "[net][download]") {
  const Wheel wheels[] = {sample_wheel(k_cu124_torch), sample_wheel(k_networkx),
                          sample_wheel(k_cpu_audio)};
  TempDir dir;
  const auto missing_url = wheels[1].fault_url("/status/404");
  const std::vector<DownloadRequest> requests = {
      request_for(wheels[0], wheels[0].fault_url(), dir.path()),
      request_for(wheels[1], missing_url, dir.path()),
      request_for(wheels[2], wheels[2].nginx_url(), dir.path()),
  };
  const auto batch = download(requests, fast());
  REQUIRE(batch.failures.size() == 1);
  CHECK(batch.failures[0].code() == ExitCode::io);
  CHECK_THAT(batch.failures[0].render(), Catch::Contains(missing_url) && Catch::Contains("404"));
  CHECK_FALSE(batch.results[1]);
  REQUIRE(batch.results[0]);
  REQUIRE(batch.results[2]);
  check_verified(*batch.results[0], wheels[0], requests[0].destination);
  check_verified(*batch.results[2], wheels[2], requests[2].destination);
  // Nothing came of the 404: no .part either (it could not be resumed).
  const fs::path part = requests[1].destination.string() + ".part";
  if (fs::exists(part)) UNSCOPED_INFO(part << " holds " << fs::file_size(part) << " bytes");
  CHECK(names_in(dir.path()) == std::set<std::string>{wheels[0].name(), wheels[2].name()});
}

TEST_CASE("download_all refuses two requests for one destination", "[net][download]") {
  const auto wheel = sample_wheel(k_networkx);
  TempDir dir;
  const auto request = request_for(wheel, wheel.nginx_url(), dir.path());
  NullReporter reporter;
  CHECK_THROWS(wheelmod::net::download_all({request, request}, fast(), reporter));
  CHECK(names_in(dir.path()).empty());
}
