// fetch_wheel_metadata over real HTTP: the PEP 658 file (2.6 wheels),
// range requests (2.5 wheels have no .metadata), the whole wheel when the
// server ignores Range. Expected METADATA digests come from the sample
// index's MANIFEST.json, written by its generator.
#include <fstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "index/page.hpp"
#include "index_client/metadata_source.hpp"
#include "net/fetcher.hpp"
#include "net_support.hpp"

using wheelmod::ExitCode;
using wheelmod::IntegrityError;
using wheelmod::index::FileHash;
using wheelmod::index::Link;
using wheelmod::index_client::describe;
using wheelmod::index_client::fetch_wheel_metadata;
using wheelmod::index_client::MetadataSource;
using wheelmod::net::Fetcher;
using wheelmod::net::FetcherOptions;
using namespace net_test;

namespace {

struct SampleWheel {
  std::string filename;
  std::string path;      // in the tree, literal '+'
  std::string url_path;  // /whl/..., '+' as %2B
  std::string sha256;
  std::string metadata_sha256;
  std::uint64_t size = 0;
  bool has_metadata_file = false;
};

SampleWheel sample_wheel(std::string_view filename, std::string_view variant) {
  static const auto manifest = nlohmann::json::parse(read_file(k_sample / "MANIFEST.json"));
  for (const auto& wheel : manifest["wheels"]) {
    const std::string wheel_variant = wheel["variant"].is_string() ? wheel["variant"] : "";
    if (wheel["filename"] != filename || wheel_variant != variant) continue;
    return SampleWheel{
        wheel["filename"],        wheel["path"], wheel["url_path"],         wheel["sha256"],
        wheel["metadata_sha256"], wheel["size"], wheel["has_metadata_file"]};
  }
  FAIL("no wheel " << filename << " in " << variant);
  return {};
}

/// A link as the index page gives it for `wheel` on `base` (scheme://host[:port]).
Link link_to(const SampleWheel& wheel, const std::string& base) {
  Link link;
  link.filename = wheel.filename;
  link.url = base + wheel.url_path;
  link.hashes = {FileHash{"sha256", wheel.sha256}};
  if (wheel.has_metadata_file) {
    link.has_core_metadata = true;
    link.core_metadata_hash =
        FileHash{"sha256", sha256_hex(read_file(k_sample / (wheel.path + ".metadata")))};
  }
  return link;
}

/// http://127.0.0.1:PORT (nginx's URL without /whl).
std::string nginx_host() {
  const auto& url = servers().nginx;
  return url.substr(0, url.size() - std::string_view("/whl").size());
}

FetcherOptions fast() {
  FetcherOptions options;
  options.connection.backoff = std::chrono::milliseconds(5);
  return options;
}

}  // namespace

TEST_CASE("describe(MetadataSource)", "[net][integration]") {
  CHECK(describe(MetadataSource::pep658) == "PEP 658 .metadata file");
  CHECK(describe(MetadataSource::range_requests) == "range requests");
  CHECK(describe(MetadataSource::whole_wheel) == "whole wheel");
}

TEST_CASE("fetch_wheel_metadata reads the PEP 658 file of a 2.6 wheel", "[net][integration]") {
  struct Case {
    const char* filename;
    const char* variant;
    std::string host;
  };
  // cu126's torch 2.6.0 files are on the "second host" (http://localhost:PORT,
  // like download-r2.pytorch.org); the rest on 127.0.0.1.
  const auto second_host = "http://localhost:" + trimmed(read_file(k_nginx_state / "port"));
  const Case cases[] = {
      {"torch-2.6.0+cu124-cp312-cp312-linux_x86_64.whl", "cu124", nginx_host()},
      {"torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl", "cu126", second_host},
      {"torchvision-0.21.0+cpu-cp313-cp313-linux_x86_64.whl", "cpu", nginx_host()},
  };
  for (const auto& c : cases) {
    CAPTURE(c.filename);
    const auto wheel = sample_wheel(c.filename, c.variant);
    REQUIRE(wheel.has_metadata_file);
    Fetcher fetcher(fast());
    const auto metadata = fetch_wheel_metadata(fetcher, link_to(wheel, c.host));
    CHECK(metadata.source == MetadataSource::pep658);
    CHECK(metadata.text == read_file(k_sample / (wheel.path + ".metadata")));
    CHECK(sha256_hex(metadata.text) == wheel.metadata_sha256);
    CHECK(fetcher.stats().requests == 1);
    CHECK(fetcher.stats().body_bytes == metadata.text.size());
  }
}

TEST_CASE("fetch_wheel_metadata reads a 2.5 wheel with range requests", "[net][integration]") {
  const auto wheel = sample_wheel("torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl", "cu124");
  REQUIRE_FALSE(wheel.has_metadata_file);
  Fetcher fetcher(fast());
  const auto metadata = fetch_wheel_metadata(fetcher, link_to(wheel, nginx_host()));
  CHECK(metadata.source == MetadataSource::range_requests);
  CHECK(sha256_hex(metadata.text) == wheel.metadata_sha256);
  CHECK_THAT(metadata.text, Catch::StartsWith("Metadata-Version: ") &&
                                Catch::Contains("\nName: torch\n") &&
                                Catch::Contains("\nVersion: 2.5.1+cu124\n"));
  // Far less than the wheel: the tail with the central directory (and
  // here METADATA, which sits just before it).
  CAPTURE(fetcher.stats().body_bytes, wheel.size);
  CHECK(fetcher.stats().body_bytes * 3 < wheel.size);
  CHECK(fetcher.stats().requests <= 3);
}

TEST_CASE("fetch_wheel_metadata reads every 2.5 wheel's METADATA by ranges", "[net][integration]") {
  // Different layouts: small audio wheels (the tail is the whole file),
  // vision, triton at the root, aarch64 builds.
  static const auto manifest = nlohmann::json::parse(read_file(k_sample / "MANIFEST.json"));
  Fetcher fetcher(fast());
  int checked = 0;
  for (const auto& entry : manifest["wheels"]) {
    if (entry["has_metadata_file"] || entry["location"] == "mirror") continue;
    const auto wheel = sample_wheel(
        entry["filename"].get<std::string>(),
        entry["variant"].is_string() ? entry["variant"].get<std::string>() : std::string());
    CAPTURE(wheel.filename);
    const auto metadata = fetch_wheel_metadata(fetcher, link_to(wheel, nginx_host()));
    CHECK(metadata.source == MetadataSource::range_requests);
    CHECK(sha256_hex(metadata.text) == wheel.metadata_sha256);
    ++checked;
  }
  CHECK(checked >= 20);
}

TEST_CASE("fetch_wheel_metadata takes the whole wheel when Range is ignored",
          "[net][integration]") {
  const auto wheel = sample_wheel("torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl", "cu124");
  Fetcher fetcher(fast());
  auto link = link_to(wheel, servers().fault + "/norange");
  const auto metadata = fetch_wheel_metadata(fetcher, link);
  CHECK(metadata.source == MetadataSource::whole_wheel);
  CHECK(sha256_hex(metadata.text) == wheel.metadata_sha256);
  // The body that came back for the range request is used: one download.
  CHECK(fetcher.stats().requests == 1);
  CHECK(fetcher.stats().body_bytes == wheel.size);
}

TEST_CASE("fetch_wheel_metadata checks the whole wheel's hash", "[net][integration]") {
  const auto wheel = sample_wheel("torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl", "cu124");
  Fetcher fetcher(fast());
  auto link = link_to(wheel, servers().fault + "/norange");
  link.hashes = {FileHash{"sha256", std::string(64, '0')}};
  try {
    fetch_wheel_metadata(fetcher, link);
    FAIL("no IntegrityError");
  } catch (const IntegrityError& error) {
    CHECK(error.code() == ExitCode::integrity);
    CHECK_THAT(error.render(), Catch::Contains("expected sha256:" + std::string(64, '0')) &&
                                   Catch::Contains("computed sha256:" + wheel.sha256));
  }
}

// pytorch/pytorch#197552: a `.metadata` file on the CDN with a line appended no longer matches
// the page's hash. It is not trusted, and the run does not fail: the wheel's own METADATA is
// read by range requests, and the warning says what happened.
TEST_CASE("fetch_wheel_metadata passes over a .metadata file with the wrong hash",
          "[net][integration]") {
  const auto wheel = sample_wheel("torch-2.6.0+cu124-cp312-cp312-linux_x86_64.whl", "cu124");
  auto link = link_to(wheel, nginx_host());
  const std::string wrong(64, 'a');
  link.core_metadata_hash = FileHash{"sha256", wrong};
  Fetcher fetcher(fast());
  const auto metadata = fetch_wheel_metadata(fetcher, link);
  CHECK(metadata.source == MetadataSource::range_requests);
  CHECK(sha256_hex(metadata.text) == wheel.metadata_sha256);
  REQUIRE(metadata.warning);
  CHECK_THAT(*metadata.warning, Catch::Contains(link.url + ".metadata") &&
                                    Catch::Contains("sha256:" + wheel.metadata_sha256) &&
                                    Catch::Contains("the page says sha256:" + wrong) &&
                                    Catch::Contains("not trusted"));
}

TEST_CASE("fetch_wheel_metadata reads local wheels by ranges", "[net][integration]") {
  const auto wheel = sample_wheel("torchvision-0.20.1+cu124-cp312-cp312-linux_x86_64.whl", "cu124");
  auto link = link_to(wheel, "file://" + k_sample.string());
  Fetcher fetcher(fast());
  const auto metadata = fetch_wheel_metadata(fetcher, link);
  CHECK(metadata.source == MetadataSource::range_requests);
  CHECK(sha256_hex(metadata.text) == wheel.metadata_sha256);
}

TEST_CASE("fetch_wheel_metadata: a file that is not a wheel is an IntegrityError",
          "[net][integration]") {
  // The .metadata file served as if it were the wheel: no zip structure.
  const auto wheel = sample_wheel("torch-2.6.0+cu124-cp312-cp312-linux_x86_64.whl", "cu124");
  Link link;
  link.filename = wheel.filename;
  link.url = nginx_host() + wheel.url_path + ".metadata";
  Fetcher fetcher(fast());
  try {
    fetch_wheel_metadata(fetcher, link);
    FAIL("no IntegrityError");
  } catch (const IntegrityError& error) {
    CHECK(error.code() == ExitCode::integrity);
    CHECK_THAT(error.what(),
               Catch::Contains("not a valid wheel") && Catch::Contains("end-of-central-directory"));
  }
}

TEST_CASE("fetch_wheel_metadata: a missing wheel is an IoError", "[net][integration]") {
  Link link;
  link.filename = "torch-9.9.9-cp312-cp312-linux_x86_64.whl";
  link.url = servers().nginx + "/cu124/torch-9.9.9-cp312-cp312-linux_x86_64.whl";
  Fetcher fetcher(fast());
  CHECK_THROWS_AS(fetch_wheel_metadata(fetcher, link), wheelmod::IoError);
}
