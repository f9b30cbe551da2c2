// The mirror manifest: exact bytes, round trip, no rewrite when unchanged,
// and every kind of damage reported with the file and the field.
#include <time.h>

#include <cstdint>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "mirror/manifest.hpp"
#include "temp_dir.hpp"

using nlohmann::json;
using wheelmod::ExitCode;
using wheelmod::IoError;
using wheelmod::mirror::k_manifest_name;
using wheelmod::mirror::Manifest;
using wheelmod::mirror::ManifestFile;
using wheelmod::mirror::read_manifest;
using wheelmod::mirror::utc_now;
using wheelmod::mirror::write_manifest;
using wheelmod::test::TempDir;

namespace fs = std::filesystem;

namespace {

constexpr std::string_view k_torch = "torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl";
constexpr std::string_view k_sympy = "sympy-1.13.1-py3-none-any.whl";

std::string sha(char digit) { return std::string(64, digit); }

Manifest sample() {
  Manifest manifest;
  manifest.source_index = "https://download.pytorch.org/whl";
  ManifestFile torch;
  torch.filename = k_torch;
  torch.project = "torch";
  torch.url = "https://download.pytorch.org/whl/cu126/" + std::string(k_torch);
  torch.sha256 = sha('a');
  torch.size = 3'000'000'000;  // beyond 32 bits
  torch.fetched = "2026-12-02T21:52:42Z";
  torch.metadata_sha256 = sha('b');
  torch.requires_python = ">=3.9";
  torch.variants = {"cu126", "cu124", "cu126"};
  manifest.files.emplace(torch.filename, torch);
  ManifestFile sympy;
  sympy.filename = k_sympy;
  sympy.project = "sympy";
  sympy.url = "https://download.pytorch.org/whl/" + std::string(k_sympy);
  sympy.sha256 = sha('c');
  sympy.sha256_from_index = false;
  sympy.size = 6;
  sympy.fetched = "2026-12-01T00:00:00Z";
  sympy.variants = {"cpu"};
  manifest.files.emplace(sympy.filename, sympy);
  return manifest;
}

// `text` with each "<d>" replaced by sha(d).
std::string with_digests(std::string text) {
  for (std::size_t at = text.find('<'); at != std::string::npos; at = text.find('<', at)) {
    text.replace(at, 3, sha(text[at + 1]));
  }
  return text;
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

IoError read_error(const TempDir& dir, std::string_view text) {
  dir.write(k_manifest_name, text);
  try {
    read_manifest(dir.path());
  } catch (const IoError& error) {
    return error;
  }
  FAIL("read_manifest accepted " << text);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("write_manifest writes sorted keys, 2-space JSON, optional fields only when set",
          "[mirror][manifest]") {
  const TempDir dir;
  CHECK(write_manifest(dir.path(), sample()));
  // <a>, <b>, <c>: 64 times that digit.
  CHECK(read_bytes(dir.path() / k_manifest_name) == with_digests(R"({
  "files": {
    "sympy-1.13.1-py3-none-any.whl": {
      "fetched": "2026-12-01T00:00:00Z",
      "project": "sympy",
      "sha256": "<c>",
      "sha256_from_index": false,
      "size": 6,
      "url": "https://download.pytorch.org/whl/sympy-1.13.1-py3-none-any.whl",
      "variants": [
        "cpu"
      ]
    },
    "torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl": {
      "fetched": "2026-12-02T21:52:42Z",
      "metadata_sha256": "<b>",
      "project": "torch",
      "requires_python": ">=3.9",
      "sha256": "<a>",
      "sha256_from_index": true,
      "size": 3000000000,
      "url": "https://download.pytorch.org/whl/cu126/torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl",
      "variants": [
        "cu124",
        "cu126"
      ]
    }
  },
  "schema_version": 1,
  "source_index": "https://download.pytorch.org/whl"
}
)"));
}

TEST_CASE("a manifest reads back as written, and an unchanged one is not rewritten",
          "[mirror][manifest]") {
  const TempDir dir;
  const Manifest written = sample();
  REQUIRE(write_manifest(dir.path(), written));
  const Manifest read = read_manifest(dir.path());
  CHECK(read.source_index == written.source_index);
  REQUIRE(read.files.size() == 2);
  for (const auto& [name, expected] : written.files) {
    CAPTURE(name);
    REQUIRE(read.files.contains(name));
    const ManifestFile& got = read.files.at(name);
    CHECK(got.filename == name);
    CHECK(got.project == expected.project);
    CHECK(got.url == expected.url);
    CHECK(got.sha256 == expected.sha256);
    CHECK(got.sha256_from_index == expected.sha256_from_index);
    CHECK(got.size == expected.size);
    CHECK(got.fetched == expected.fetched);
    CHECK(got.metadata_sha256 == expected.metadata_sha256);
    CHECK(got.requires_python == expected.requires_python);
  }
  CHECK(read.files.at(std::string(k_torch)).variants == std::vector<std::string>{"cu124", "cu126"});
  CHECK(read.files.at(std::string(k_sympy)).variants == std::vector<std::string>{"cpu"});

  const fs::path file = dir.path() / k_manifest_name;
  const std::string bytes = read_bytes(file);
  CHECK_FALSE(write_manifest(dir.path(), read));
  CHECK(read_bytes(file) == bytes);

  Manifest changed = read;
  changed.files.at(std::string(k_sympy)).variants.push_back("cu126");
  CHECK(write_manifest(dir.path(), changed));
  CHECK(read_manifest(dir.path()).files.at(std::string(k_sympy)).variants ==
        std::vector<std::string>{"cpu", "cu126"});
}

TEST_CASE("no manifest reads as an empty one", "[mirror][manifest]") {
  const TempDir dir;
  for (const fs::path& where : {dir.path(), dir.path() / "not-yet-created"}) {
    const Manifest manifest = read_manifest(where);
    CHECK(manifest.source_index.empty());
    CHECK(manifest.files.empty());
  }
  const TempDir empty;
  CHECK(write_manifest(empty.path(), Manifest{}));
  CHECK(read_bytes(empty.path() / k_manifest_name) ==
        "{\n  \"files\": {},\n  \"schema_version\": 1,\n  \"source_index\": \"\"\n}\n");
}

TEST_CASE("a damaged manifest is an IoError naming the file and the field", "[mirror][manifest]") {
  const TempDir dir;
  REQUIRE(write_manifest(dir.path(), sample()));
  const json valid = json::parse(read_bytes(dir.path() / k_manifest_name));
  const auto torch = [](json& doc) -> json& { return doc["files"][std::string(k_torch)]; };
  const std::string torch_field = "field 'files[\"" + std::string(k_torch) + "\"].";

  struct Case {
    std::string_view name;
    std::function<void(json&)> damage;
    std::string cause;
  };
  const Case cases[] = {
      {"newer schema", [](json& d) { d["schema_version"] = 2; },
       "field 'schema_version' is 2; this wheelmod reads version 1"},
      {"schema as text", [](json& d) { d["schema_version"] = "1"; },
       "field 'schema_version' must be a non-negative integer, not string"},
      {"no schema", [](json& d) { d.erase("schema_version"); },
       "field 'schema_version' is missing"},
      {"no source index", [](json& d) { d.erase("source_index"); },
       "field 'source_index' is missing"},
      {"files as a list", [](json& d) { d["files"] = json::array(); },
       "field 'files' must be an object, not array"},
      {"entry as text", [&](json& d) { torch(d) = "x"; },
       "field 'files[\"" + std::string(k_torch) + "\"]' must be an object, not string"},
      {"size as text", [&](json& d) { torch(d)["size"] = "12"; },
       torch_field + "size' must be a non-negative integer, not string"},
      {"negative size", [&](json& d) { torch(d)["size"] = -1; },
       torch_field + "size' must be a non-negative integer, not number"},
      {"fractional size", [&](json& d) { torch(d)["size"] = 1.5; },
       torch_field + "size' must be a non-negative integer, not number"},
      {"bad digest", [&](json& d) { torch(d)["sha256"] = "ABC"; },
       torch_field + "sha256' is not a lower-case hex sha256 digest: 'ABC'"},
      {"null metadata digest", [&](json& d) { torch(d)["metadata_sha256"] = nullptr; },
       torch_field + "metadata_sha256' must be a string, not null"},
      {"flag as text", [&](json& d) { torch(d)["sha256_from_index"] = "yes"; },
       torch_field + "sha256_from_index' must be a boolean, not string"},
      {"variant as number", [&](json& d) { torch(d)["variants"] = json::array({1}); },
       torch_field + "variants' must hold strings, not number"},
      {"no url", [&](json& d) { torch(d).erase("url"); }, torch_field + "url' is missing"},
      {"project as number", [&](json& d) { torch(d)["project"] = 7; },
       torch_field + "project' must be a string, not number"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    json damaged = valid;
    c.damage(damaged);
    const IoError error = read_error(dir, damaged.dump(2));
    CHECK(error.code() == ExitCode::io);
    CHECK(error.subject() == (dir.path() / k_manifest_name).string());
    CHECK(error.cause() == c.cause);
    CHECK_THAT(error.hint(), Catch::Contains("newer wheelmod"));
  }

  const IoError truncated = read_error(dir, valid.dump(2).substr(0, 40));
  CHECK(truncated.cause() == "is not valid JSON");
  REQUIRE(truncated.details().size() == 1);
  CHECK_THAT(truncated.details()[0], Catch::Contains("parse error"));
  CHECK(read_error(dir, "[1, 2]").cause() == "holds a JSON array, not the manifest's object");
  CHECK(read_error(dir, "").cause() == "is not valid JSON");
}

TEST_CASE("utc_now is RFC 3339 UTC with seconds", "[mirror][manifest]") {
  const std::time_t before = std::time(nullptr);
  const std::string now = utc_now();
  const std::time_t after = std::time(nullptr);
  REQUIRE(std::regex_match(now, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
  std::tm parts{};
  REQUIRE(::strptime(now.c_str(), "%Y-%m-%dT%H:%M:%SZ", &parts) != nullptr);
  const std::time_t parsed = ::timegm(&parts);
  CHECK(parsed >= before);
  CHECK(parsed <= after);
}
