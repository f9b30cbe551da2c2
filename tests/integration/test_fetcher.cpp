// Fetcher against real servers on 127.0.0.1: nginx serving the sample
// index (pages, ETag/304, byte ranges) and fault_server.py for what nginx
// will not do (503/429 with Retry-After, 403 like S3, stalls, drops,
// ignored ranges). Expected bytes come from the files on disk.
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <optional>
#include <string>

#include <catch2/catch.hpp>
#include <netinet/in.h>
#include <sys/socket.h>

#include "core/errors.hpp"
#include "net/fetcher.hpp"
#include "net/http_common.hpp"  // private: parse_retry_after
#include "net_support.hpp"

using wheelmod::ExitCode;
using wheelmod::IoError;
using wheelmod::net::Fetcher;
using wheelmod::net::FetcherOptions;
using namespace net_test;

namespace {

constexpr std::string_view k_html = "text/html";
const std::string k_wheel_251 = "cu124/torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl";
const std::string k_wheel_251_url = "cu124/torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl";

/// Quick retries for tests: the behaviour, not the waiting, is under test.
FetcherOptions fast(unsigned attempts = 4) {
  FetcherOptions options;
  options.attempts = attempts;
  options.connection.backoff = std::chrono::milliseconds(5);
  options.connection.connect_timeout = std::chrono::seconds(5);
  options.connection.stall_timeout = std::chrono::seconds(10);
  return options;
}

/// The error `action` throws, which must be an IoError.
template <class Action>
IoError io_error_of(Action&& action) {
  try {
    action();
  } catch (const IoError& error) {
    return error;
  }
  FAIL("no IoError was thrown");
  throw std::logic_error("unreachable");
}

/// A port nothing listens on (bound, read, closed).
int closed_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  socklen_t length = sizeof address;
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0);
  ::close(fd);
  return ntohs(address.sin_port);
}

}  // namespace

TEST_CASE("Fetcher::get_page reads pages over HTTP", "[net][integration]") {
  const auto& base = servers().nginx;
  struct Case {
    std::string path;  // under /whl/
    std::string page;  // the rendered directory it must equal
  };
  const Case cases[] = {
      {"cu126/torch/", "cu126/torch"},
      {"cu124/", "cu124"},
      {"torch/", "torch"},
      {"cu124/torchvision", "cu124/torchvision"},  // no slash: nginx's try_files finds index.html
  };
  Fetcher fetcher(fast());
  for (const auto& c : cases) {
    CAPTURE(c.path);
    const auto url = base + "/" + c.path;
    const auto response = fetcher.get_page(url, "text/html");
    REQUIRE(response.has_value());
    CHECK(response->status == 200);
    CHECK(response->body == rendered_page(c.page));
    CHECK(response->content_type == k_html);
    CHECK(response->effective_url == url);
    CHECK_FALSE(response->from_cache);
    CHECK(response->total_size == response->body.size());
  }
  CHECK(fetcher.stats().requests == std::size(cases));
  CHECK(fetcher.stats().not_modified == 0);
  // nginx gzips pages: fewer bytes came over the wire than the pages hold.
  std::uint64_t page_bytes = 0;
  for (const auto& c : cases) page_bytes += rendered_page(c.page).size();
  CAPTURE(fetcher.stats().body_bytes, page_bytes);
  CHECK(fetcher.stats().body_bytes > 0);
  CHECK(fetcher.stats().body_bytes < page_bytes);
}

TEST_CASE("parse_retry_after reads seconds and HTTP dates", "[net][integration]") {
  // RFC 9110 §10.2.3: delay-seconds or an HTTP-date.
  using std::chrono::milliseconds;
  using wheelmod::net::parse_retry_after;
  struct Case {
    std::string value;
    std::optional<milliseconds> expected;
  };
  const Case cases[] = {
      {"0", milliseconds(0)},
      {"1", milliseconds(1000)},
      {" 120 ", milliseconds(120'000)},
      {"Wed, 21 Oct 2015 07:28:00 GMT", milliseconds(0)},  // in the past: now
      {"", std::nullopt},
      {"soon", std::nullopt},
  };
  for (const auto& c : cases) {
    CAPTURE(c.value);
    CHECK(parse_retry_after(c.value) == c.expected);
  }
  // A date 30 s ahead, in IMF-fixdate form.
  const std::time_t later = std::time(nullptr) + 30;
  char date[64];
  std::tm parts{};
  ::gmtime_r(&later, &parts);
  REQUIRE(std::strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &parts) > 0);
  const auto delay = parse_retry_after(date);
  REQUIRE(delay);
  CHECK(*delay > milliseconds(27'000));
  CHECK(*delay <= milliseconds(30'000));
}

TEST_CASE("Fetcher::get_page answers nullopt for 404 and S3's 403", "[net][integration]") {
  Fetcher fetcher(fast());
  // nginx: 404. download.pytorch.org (S3 behind CloudFront): 403.
  CHECK_FALSE(fetcher.get_page(servers().nginx + "/cu124/no-such-project/", "text/html"));
  CHECK_FALSE(fetcher.get_page(servers().fault + "/s3/whl/cu124/no-such-project/", "text/html"));
  CHECK(fetcher.stats().requests == 2);  // neither is retried
  // The same fault server does answer existing pages.
  CHECK(fetcher.get_page(servers().fault + "/s3/whl/cu124/torch/", "text/html"));
}

TEST_CASE("Fetcher::get_page revalidates cached pages with 304", "[net][integration]") {
  TempDir cache;
  auto options = fast();
  options.cache_dir = cache.path();
  const auto url = servers().nginx + "/cu126/torchvision/";
  const auto expected = rendered_page("cu126/torchvision");

  Fetcher fetcher(options);
  const auto first = fetcher.get_page(url, "text/html");
  REQUIRE(first);
  CHECK(first->body == expected);
  CHECK_FALSE(first->from_cache);
  const auto after_first = fetcher.stats();
  CHECK(after_first.body_bytes > 0);
  CHECK(after_first.not_modified == 0);

  const auto second = fetcher.get_page(url, "text/html");
  REQUIRE(second);
  CHECK(second->body == expected);
  CHECK(second->from_cache);
  CHECK(second->status == 200);
  CHECK(second->content_type == k_html);
  CHECK(fetcher.stats().requests == 2);
  CHECK(fetcher.stats().body_bytes == after_first.body_bytes);  // the 304 has no body
  CHECK(fetcher.stats().not_modified == 1);

  // The cache outlives the fetcher.
  Fetcher later(options);
  const auto third = later.get_page(url, "text/html");
  REQUIRE(third);
  CHECK(third->from_cache);
  CHECK(third->body == expected);
  CHECK(later.stats().not_modified == 1);
  CHECK(later.stats().body_bytes == 0);

  // Another Accept header is another cache entry.
  const auto json = later.get_page(url, "application/vnd.pypi.simple.v1+json");
  REQUIRE(json);
  CHECK_FALSE(json->from_cache);
}

TEST_CASE("Fetcher::get_page ignores corrupt cache entries", "[net][integration]") {
  TempDir cache;
  auto options = fast();
  options.cache_dir = cache.path();
  const auto url = servers().nginx + "/cu124/torchaudio/";
  const auto expected = rendered_page("cu124/torchaudio");
  {
    Fetcher fetcher(options);
    REQUIRE(fetcher.get_page(url, "text/html"));
  }
  std::vector<fs::path> bodies;
  std::vector<fs::path> metas;
  for (const auto& entry : fs::directory_iterator(cache.path() / "http"))
    (entry.path().extension() == ".body" ? bodies : metas).push_back(entry.path());
  REQUIRE(bodies.size() == 1);
  REQUIRE(metas.size() == 1);

  struct Case {
    const char* label;
    fs::path file;
    std::string content;
  };
  const Case cases[] = {
      {"body changed", bodies[0], "<html>not the page</html>"},
      {"body truncated", bodies[0], expected.substr(0, 10)},
      {"metadata not JSON", metas[0], "{ this is not json"},
      {"metadata of another URL", metas[0],
       R"({"format":1,"url":"http://elsewhere/","size":1,"sha256":"00","etag":"\"x\""})"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.label);
    {
      Fetcher fetcher(options);  // writes a good entry again
      REQUIRE(fetcher.get_page(url, "text/html"));
    }
    std::ofstream(c.file, std::ios::binary | std::ios::trunc) << c.content;
    Fetcher fetcher(options);
    const auto page = fetcher.get_page(url, "text/html");
    REQUIRE(page);
    CHECK(page->body == expected);
    CHECK_FALSE(page->from_cache);
    CHECK(fetcher.stats().not_modified == 0);
    CHECK(fetcher.stats().body_bytes > 0);
  }
}

TEST_CASE("Fetcher::get_range returns exact bytes from nginx", "[net][integration]") {
  const auto file = read_file(k_sample / "whl" / k_wheel_251);
  const auto size = file.size();
  const auto url = servers().nginx + "/" + k_wheel_251_url;
  struct Case {
    const char* label;
    std::int64_t offset;
    std::uint64_t length;
    std::size_t first;  // expected slice of the file
    std::size_t count;
  };
  const Case cases[] = {
      {"suffix", -100, 0, size - 100, 100},
      {"suffix larger than the file", -static_cast<std::int64_t>(size) - 500, 0, 0, size},
      {"first bytes", 0, 30, 0, 30},
      {"middle", 1000, 500, 1000, 500},
      {"runs past the end", static_cast<std::int64_t>(size) - 10, 100, size - 10, 10},
  };
  Fetcher fetcher(fast());
  for (const auto& c : cases) {
    CAPTURE(c.label);
    const auto response = fetcher.get_range(url, c.offset, c.length);
    CHECK(response.status == 206);
    CHECK(response.total_size == size);
    CHECK(response.body == file.substr(c.first, c.count));
  }
  CHECK(fetcher.stats().requests == std::size(cases));
}

TEST_CASE("Fetcher::get_range past the end is an IoError", "[net][integration]") {
  const auto size = read_file(k_sample / "whl" / k_wheel_251).size();
  const auto url = servers().nginx + "/" + k_wheel_251_url;
  Fetcher fetcher(fast());
  const auto error =
      io_error_of([&] { fetcher.get_range(url, static_cast<std::int64_t>(size) + 10, 5); });
  CHECK(error.code() == ExitCode::io);
  CHECK_THAT(error.what(), Catch::Contains("HTTP 416") && Catch::Contains(url) &&
                               Catch::Contains(std::to_string(size) + " bytes"));
  CHECK(fetcher.stats().requests == 1);
}

TEST_CASE("Fetcher::get_range cuts the slice when the server ignores Range", "[net][integration]") {
  const auto file = read_file(k_sample / "whl" / k_wheel_251);
  const auto url = servers().fault + "/norange/whl/" + k_wheel_251_url;
  Fetcher fetcher(fast());
  const auto suffix = fetcher.get_range(url, -64, 0);
  CHECK(suffix.status == 200);
  CHECK(suffix.total_size == file.size());
  CHECK(suffix.body == file.substr(file.size() - 64));
  const auto middle = fetcher.get_range(url, 100, 50);
  CHECK(middle.body == file.substr(100, 50));
  CHECK(middle.total_size == file.size());
  CHECK_THROWS_AS(fetcher.get_range(url, static_cast<std::int64_t>(file.size()), 1), IoError);
}

TEST_CASE("Fetcher retries 503 and then succeeds", "[net][integration]") {
  const auto url = servers().fault + "/flaky/2/" + unique_token() + "/whl/cu124/torch/";
  Fetcher fetcher(fast());
  const auto page = fetcher.get_page(url, "text/html");
  REQUIRE(page);
  CHECK(page->body == read_file(k_sample / "whl/cu124/torch/index.html"));
  CHECK(fetcher.stats().requests == 3);
}

TEST_CASE("Fetcher waits as long as Retry-After says on 429", "[net][integration]") {
  // The fault server answers 429 with "Retry-After: 1"; the backoff is 5 ms,
  // so a retry before one second means the header was not honoured.
  const auto url = servers().fault + "/ratelimit/1/" + unique_token() + "/whl/cu124/torch/";
  Fetcher fetcher(fast());
  const auto start = std::chrono::steady_clock::now();
  const auto page = fetcher.get_page(url, "text/html");
  const auto waited = std::chrono::steady_clock::now() - start;
  REQUIRE(page);
  CHECK(fetcher.stats().requests == 2);
  CHECK(waited >= std::chrono::milliseconds(950));
  CHECK(waited < std::chrono::seconds(10));
}

TEST_CASE("Fetcher gives up after the attempts on a permanent 503", "[net][integration]") {
  const auto url = servers().fault + "/down/whl/cu124/torch/";
  Fetcher fetcher(fast(4));
  const auto error = io_error_of([&] { fetcher.get_page(url, "text/html"); });
  CHECK(error.code() == ExitCode::io);
  CHECK(error.subject() == url);
  CHECK_THAT(error.what(), Catch::Contains("HTTP 503") && Catch::Contains("(after 4 attempts)"));
  CHECK_THAT(error.render(),
             Catch::StartsWith("error: " + url + ": HTTP 503") && Catch::Contains("\nhint: "));
  CHECK(fetcher.stats().requests == 4);
}

TEST_CASE("Fetcher fails at once on other 4xx", "[net][integration]") {
  struct Case {
    const char* label;
    std::string url;
    bool page;  // get_page (else get)
    const char* cause;
  };
  const Case cases[] = {
      {"410 page", servers().fault + "/status/410/x/", true, "HTTP 410"},
      {"401 page", servers().fault + "/status/401/x/", true, "HTTP 401"},
      {"404 file", servers().nginx + "/cu124/no-such.whl", false, "HTTP 404"},
      {"403 file", servers().fault + "/s3/whl/cu124/no-such.whl", false, "HTTP 403"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.label);
    Fetcher fetcher(fast());
    const auto error = io_error_of([&] {
      if (c.page)
        fetcher.get_page(c.url, "text/html");
      else
        fetcher.get(c.url);
    });
    CHECK_THAT(error.what(), Catch::Contains(c.cause) && !Catch::Contains("attempts"));
    CHECK(fetcher.stats().requests == 1);
  }
}

TEST_CASE("Fetcher gives up on a stalled transfer", "[net][integration]") {
  auto options = fast(1);
  options.connection.stall_timeout = std::chrono::seconds(1);
  Fetcher fetcher(options);
  const auto start = std::chrono::steady_clock::now();
  const auto error = io_error_of([&] { fetcher.get(servers().fault + "/stall/x"); });
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(4));
  CHECK_THAT(error.what(), Catch::Contains("stalled") && Catch::Contains("(after 1 attempt)"));
}

TEST_CASE("Fetcher retries a connection dropped mid-body", "[net][integration]") {
  Fetcher fetcher(fast(2));
  const auto error =
      io_error_of([&] { fetcher.get(servers().fault + "/drop/whl/" + k_wheel_251_url); });
  CHECK_THAT(error.what(), Catch::Contains("(after 2 attempts)"));
  CHECK(fetcher.stats().requests == 2);
}

TEST_CASE("Fetcher retries a refused connection, then names the cause", "[net][integration]") {
  const auto url = "http://127.0.0.1:" + std::to_string(closed_port()) + "/whl/";
  Fetcher fetcher(fast(2));
  const auto error = io_error_of([&] { fetcher.get_page(url, "text/html"); });
  CHECK_THAT(error.what(), Catch::Contains("onnect") && Catch::Contains("(after 2 attempts)"));
  CHECK_THAT(error.hint(), Catch::Contains("proxy"));
}

TEST_CASE("Fetcher follows redirects", "[net][integration]") {
  Fetcher fetcher(fast());
  const auto page =
      fetcher.get_page(servers().fault + "/redirect/whl/cu124/index.html", "text/html");
  REQUIRE(page);
  CHECK(page->body == read_file(k_sample / "whl/cu124/index.html"));
  CHECK(page->effective_url == servers().fault + "/whl/cu124/index.html");
}

TEST_CASE("Fetcher masks credentials in errors", "[net][integration]") {
  auto url = servers().fault + "/down/x";
  url.insert(url.find("://") + 3, "alice:s3cret@");
  Fetcher fetcher(fast(1));
  const auto error = io_error_of([&] { fetcher.get(url); });
  CHECK_THAT(error.what(), Catch::Contains("alice:***@") && !Catch::Contains("s3cret"));
}

TEST_CASE("Fetcher reads file:// URLs and plain paths", "[net][integration]") {
  Fetcher fetcher(fast());
  const auto root = k_sample.string();
  const auto page = read_file(k_sample / "whl/cu124/torch/index.html");
  const auto wheel = read_file(k_sample / "whl" / k_wheel_251);
  // A directory URL means its index.html, as a static web server serves it.
  for (const std::string& url :
       {"file://" + root + "/whl/cu124/torch/", "file://localhost" + root + "/whl/cu124/torch/",
        root + "/whl/cu124/torch/", root + "/whl/cu124/torch",
        root + "/whl/cu124/torch/index.html"}) {
    CAPTURE(url);
    const auto response = fetcher.get_page(url, "text/html");
    REQUIRE(response);
    CHECK(response->body == page);
    CHECK(response->content_type == k_html);
  }
  CHECK_FALSE(fetcher.get_page("file://" + root + "/whl/cu124/nothing/", "text/html"));
  CHECK_FALSE(fetcher.get_page(root + "/nothing/index.html", "text/html"));
  // %2B in a file URL is '+' on disk; a plain path is taken literally.
  const auto encoded = "file://" + root + "/whl/" + k_wheel_251_url;
  CHECK(fetcher.get(encoded).body == wheel);
  CHECK(fetcher.get(root + "/whl/" + k_wheel_251).body == wheel);
  const auto suffix = fetcher.get_range(encoded, -100, 0);
  CHECK(suffix.body == wheel.substr(wheel.size() - 100));
  CHECK(suffix.total_size == wheel.size());
  const auto middle = fetcher.get_range(root + "/whl/" + k_wheel_251, 200, 40);
  CHECK(middle.body == wheel.substr(200, 40));
  CHECK_THROWS_AS(fetcher.get_range(encoded, static_cast<std::int64_t>(wheel.size()), 1), IoError);
  const auto missing = io_error_of([&] { fetcher.get(root + "/whl/no-such.whl"); });
  CHECK_THAT(missing.what(), Catch::Contains("no-such.whl"));
  CHECK(fetcher.stats().requests == 0);
}

TEST_CASE("Fetcher refuses URL schemes it does not speak", "[net][integration]") {
  Fetcher fetcher(fast());
  for (const char* url : {"ftp://example.org/whl/", "s3://bucket/whl/"}) {
    CAPTURE(url);
    const auto error = io_error_of([&] { fetcher.get_page(url, "text/html"); });
    CHECK_THAT(error.what(), Catch::Contains("unsupported URL scheme"));
  }
  const auto remote = io_error_of([&] { fetcher.get("file://otherhost/x"); });
  CHECK_THAT(remote.what(), Catch::Contains("another host"));
}
