// PEP 691 JSON pages, with the PEP 700 (size, upload-time) and PEP 714
// (core-metadata) keys. Examples follow PEP 691 "Project Detail" and PyPI's
// answers to `Accept: application/vnd.pypi.simple.v1+json`.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "index/page.hpp"
#include "require_parsed.hpp"

using wheelmod::index::FileHash;
using wheelmod::index::Link;
using wheelmod::index::parse_project_json;
using wheelmod::index::parse_root_json;
using wheelmod::index::ProjectPage;

namespace {

constexpr std::string_view k_page_url = "https://pypi.org/simple/torch/";

std::string sha(char digit) { return std::string(64, digit); }

ProjectPage parse_ok(std::string_view json, std::string_view url = k_page_url) {
  return wheelmod::test::require_parsed(parse_project_json(json, url), "index page");
}

std::string parse_error(std::string_view json) {
  auto page = parse_project_json(json, k_page_url);
  REQUIRE_FALSE(page.has_value());
  CHECK(page.error().input == k_page_url);
  return page.error().message;
}

// A v1.1 page holding the given `files` entries.
std::string page_with(std::string_view files) {
  return R"({"meta": {"api-version": "1.1"}, "name": "torch", "versions": ["2.6.0"], "files": [)" +
         std::string(files) + "]}";
}

// One file entry with the given extra keys.
std::string file_with(std::string_view extra,
                      std::string_view filename = "x-1.0-py3-none-any.whl") {
  return R"({"filename": ")" + std::string(filename) + R"(", "url": "../../files/)" +
         std::string(filename) + "\"" + std::string(extra) + "}";
}

}  // namespace

TEST_CASE("parse_project_json reads a PEP 691 v1.1 project page", "[index][json]") {
  const std::string json = R"({
    "meta": {"api-version": "1.1", "_last-serial": 26466789},
    "name": "torch",
    "versions": ["2.6.0"],
    "files": [
      {
        "filename": "torch-2.6.0-cp312-cp312-manylinux1_x86_64.whl",
        "url": "https://files.pythonhosted.org/packages/ab/cd/torch-2.6.0-cp312-cp312-manylinux1_x86_64.whl#sha256=)" +
                           sha('a') + R"(",
        "hashes": {"sha256": ")" +
                           sha('a') + R"("},
        "requires-python": ">=3.9.0",
        "core-metadata": {"sha256": ")" +
                           sha('c') + R"("},
        "data-dist-info-metadata": {"sha256": ")" +
                           sha('c') + R"("},
        "size": 766627843,
        "upload-time": "2025-01-29T16:24:27.017284Z",
        "yanked": false
      },
      {
        "filename": "torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl",
        "url": "/whl/cu126/torch-2.6.0%2Bcu126-cp312-cp312-manylinux_2_28_x86_64.whl",
        "hashes": {}
      }
    ]
  })";
  const ProjectPage page = parse_ok(json);
  CHECK(page.url == k_page_url);
  CHECK(page.name == "torch");
  REQUIRE(page.links.size() == 2);

  const Link& first = page.links[0];
  CHECK(first.filename == "torch-2.6.0-cp312-cp312-manylinux1_x86_64.whl");
  CHECK(first.url ==
        "https://files.pythonhosted.org/packages/ab/cd/"
        "torch-2.6.0-cp312-cp312-manylinux1_x86_64.whl");
  CHECK(first.hashes == std::vector<FileHash>{{"sha256", sha('a')}});
  CHECK(first.requires_python == ">=3.9.0");
  CHECK(first.has_core_metadata);
  CHECK(first.core_metadata_hash == FileHash{"sha256", sha('c')});
  CHECK(first.size == 766627843U);
  CHECK(first.upload_time == "2025-01-29T16:24:27.017284Z");
  CHECK_FALSE(first.yanked.has_value());

  const Link& second = page.links[1];
  CHECK(second.url ==
        "https://pypi.org/whl/cu126/torch-2.6.0%2Bcu126-cp312-cp312-manylinux_2_28_x86_64.whl");
  CHECK(second.hashes.empty());
  CHECK_FALSE(second.has_core_metadata);
  CHECK_FALSE(second.size.has_value());
  CHECK_FALSE(second.requires_python.has_value());
  CHECK_FALSE(second.upload_time.has_value());
}

TEST_CASE("parse_project_json resolves urls against the page", "[index][json]") {
  const ProjectPage page = parse_ok(page_with(file_with("")));
  REQUIRE(page.links.size() == 1);
  CHECK(page.links[0].url == "https://pypi.org/files/x-1.0-py3-none-any.whl");
}

TEST_CASE("parse_project_json reads hashes, sha256 first", "[index][json]") {
  struct {
    std::string hashes;
    std::vector<FileHash> expected;
  } const cases[] = {
      {R"({"sha256": ")" + sha('A') + R"("})", {{"sha256", sha('a')}}},
      {R"({"md5": ")" + std::string(32, '0') + R"(", "sha256": ")" + sha('a') + R"("})",
       {{"sha256", sha('a')}, {"md5", std::string(32, '0')}}},
      {R"({"sha512": ")" + std::string(128, 'b') + R"(", "blake2b": ")" + std::string(64, 'c') +
           R"("})",
       {{"sha512", std::string(128, 'b')}, {"blake2b", std::string(64, 'c')}}},
      {R"({"sha3_256": "ab", "sha1": "cd"})", {}},
      {"{}", {}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.hashes);
    const ProjectPage page = parse_ok(page_with(file_with(R"(, "hashes": )" + c.hashes)));
    REQUIRE(page.links.size() == 1);
    CHECK(page.links[0].hashes == c.expected);
  }
}

TEST_CASE("parse_project_json reads yanked as PEP 691 and pip do", "[index][json]") {
  struct {
    std::string value;
    std::optional<std::string> expected;
  } const cases[] = {
      {"true", ""},
      {"false", std::nullopt},
      {R"("broken CUDA libraries")", "broken CUDA libraries"},
      {R"("")", std::nullopt},  // pip: an empty reason is not yanked
      {"null", std::nullopt},
  };
  for (const auto& c : cases) {
    CAPTURE(c.value);
    const ProjectPage page = parse_ok(page_with(file_with(R"(, "yanked": )" + c.value)));
    REQUIRE(page.links.size() == 1);
    CHECK(page.links[0].yanked == c.expected);
  }
}

TEST_CASE("parse_project_json follows PEP 714 for core metadata", "[index][json]") {
  struct {
    std::string keys;
    bool present;
    std::optional<FileHash> hash;
  } const cases[] = {
      {"", false, std::nullopt},
      {R"(, "core-metadata": true)", true, std::nullopt},
      {R"(, "core-metadata": false)", false, std::nullopt},
      {R"(, "core-metadata": {"sha256": ")" + sha('a') + R"("})", true,
       FileHash{"sha256", sha('a')}},
      {R"(, "core-metadata": {})", true, std::nullopt},
      {R"(, "dist-info-metadata": {"sha256": ")" + sha('b') + R"("})", true,
       FileHash{"sha256", sha('b')}},
      {R"(, "dist-info-metadata": true)", true, std::nullopt},
      // The new key wins whatever the old one says.
      {R"(, "dist-info-metadata": {"sha256": ")" + sha('b') +
           R"("}, "core-metadata": {"sha256": ")" + sha('a') + R"("})",
       true, FileHash{"sha256", sha('a')}},
      {R"(, "core-metadata": false, "dist-info-metadata": true)", false, std::nullopt},
  };
  for (const auto& c : cases) {
    CAPTURE(c.keys);
    const ProjectPage page = parse_ok(page_with(file_with(c.keys)));
    REQUIRE(page.links.size() == 1);
    CHECK(page.links[0].has_core_metadata == c.present);
    CHECK(page.links[0].core_metadata_hash == c.hash);
  }
}

TEST_CASE("parse_project_json keeps a duplicate file with the same hash once", "[index][json]") {
  const std::string hashes = R"(, "hashes": {"sha256": ")" + sha('a') + R"("})";
  const ProjectPage page = parse_ok(page_with(
      file_with(hashes) + "," + file_with(hashes, "y-1.0.tar.gz") + "," + file_with(hashes)));
  REQUIRE(page.links.size() == 2);
  CHECK(page.links[0].filename == "x-1.0-py3-none-any.whl");
  CHECK(page.links[1].filename == "y-1.0.tar.gz");
}

TEST_CASE("parse_project_json rejects a duplicate file with different hashes", "[index][json]") {
  const std::string message =
      parse_error(page_with(file_with(R"(, "hashes": {"sha256": ")" + sha('a') + R"("})") + "," +
                            file_with(R"(, "hashes": {"sha256": ")" + sha('b') + R"("})")));
  CHECK_THAT(message, Catch::Contains("x-1.0-py3-none-any.whl") && Catch::Contains(sha('a')) &&
                          Catch::Contains(sha('b')));
}

TEST_CASE("parse_project_json accepts every 1.x API version", "[index][json]") {
  for (const std::string version : {"1.0", "1.1", "1.3"}) {
    CAPTURE(version);
    const std::string json =
        R"({"meta": {"api-version": ")" + version + R"("}, "name": "x", "files": []})";
    CHECK(parse_ok(json).links.empty());
  }
}

TEST_CASE("parse_project_json rejects other API versions, saying which", "[index][json]") {
  for (const std::string version : {"2.0", "0.1", "v1"}) {
    CAPTURE(version);
    const std::string message =
        parse_error(R"({"meta": {"api-version": ")" + version + R"("}, "name": "x", "files": []})");
    CHECK_THAT(message, Catch::Contains("'" + version + "'"));
  }
  CHECK_THAT(parse_error(R"({"name": "x", "files": []})"), Catch::Contains("meta"));
  CHECK_THAT(parse_error(R"({"meta": {"api-version": 1}, "name": "x", "files": []})"),
             Catch::Contains("api-version"));
}

TEST_CASE("parse_project_json reports malformed JSON with its position", "[index][json]") {
  struct {
    std::string json;
    std::string expected;
  } const cases[] = {
      {"{\"meta\": {\"api-version\": \"1.0\"},\n \"files\": [,]}", "line 2"},
      {"", "invalid JSON"},
      {"<!DOCTYPE html><html></html>", "line 1, column 1"},
      {R"({"meta": {"api-version": "1.0"}, "files": [)", "invalid JSON"},
      {"[1, 2]", "expected a JSON object"},
      // A number past a double's range is nlohmann's out_of_range, not a
      // parse_error (found by tests/fuzz, regressions/index_json).
      {R"({"meta": {"api-version": "1.0"}, "files": [], "size": 77777e777})", "number overflow"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.json);
    CHECK_THAT(parse_error(c.json), Catch::Contains(c.expected));
  }
}

TEST_CASE("parse_project_json rejects fields of the wrong type, naming the file", "[index][json]") {
  struct {
    std::string files;
    std::string expected;
  } const cases[] = {
      {file_with(R"(, "size": -1)"), "'size'"},
      {file_with(R"(, "size": "12")"), "'size'"},
      {file_with(R"(, "size": 1.5)"), "'size'"},
      {file_with(R"(, "yanked": 1)"), "'yanked'"},
      {file_with(R"(, "hashes": ["sha256"])"), "'hashes'"},
      {file_with(R"(, "hashes": {"sha256": 5})"), "'hashes.sha256'"},
      {file_with(R"(, "hashes": {"sha256": "zz"})"), "malformed sha256 digest"},
      {file_with(R"(, "core-metadata": "yes")"), "'core-metadata'"},
      {file_with(R"(, "requires-python": 3)"), "'requires-python'"},
      {file_with(R"(, "upload-time": 3)"), "'upload-time'"},
      {R"({"filename": "x-1.0-py3-none-any.whl"})", "no 'url'"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.files);
    const std::string message = parse_error(page_with(c.files));
    CHECK_THAT(message, Catch::Contains("x-1.0-py3-none-any.whl") && Catch::Contains(c.expected));
  }
  CHECK_THAT(parse_error(page_with(R"({"url": "x"})")), Catch::Contains("no 'filename'"));
  for (const std::string name : {"../x-1.0.tar.gz", "a/b.whl", "..", ""}) {
    CAPTURE(name);
    CHECK_THAT(parse_error(page_with(R"({"filename": ")" + name + R"(", "url": "x"})")),
               Catch::Contains("must be a file name"));
  }
  CHECK_THAT(parse_error(page_with("3")), Catch::Contains("file object"));
  CHECK_THAT(parse_error(R"({"meta": {"api-version": "1.0"}, "name": "x"})"),
             Catch::Contains("'files'"));
  CHECK_THAT(parse_error(R"({"meta": {"api-version": "1.0"}, "name": 3, "files": []})"),
             Catch::Contains("'name'"));
}

TEST_CASE("parse_root_json lists the project names", "[index][json]") {
  const auto names = parse_root_json(R"({
    "meta": {"api-version": "1.1", "_last-serial": 123},
    "projects": [{"name": "torch"}, {"name": "Typing-Extensions", "_last-serial": 1}, {"name": "nvidia-cudnn-cu12"}]
  })");
  REQUIRE(names.has_value());
  CHECK(*names == std::vector<std::string>{"torch", "Typing-Extensions", "nvidia-cudnn-cu12"});
  CHECK(parse_root_json(R"({"meta": {"api-version": "1.0"}, "projects": []})")->empty());
}

TEST_CASE("parse_root_json rejects what is not a PEP 691 project list", "[index][json]") {
  struct {
    std::string json;
    std::string expected;
  } const cases[] = {
      {R"({"meta": {"api-version": "2.0"}, "projects": []})", "'2.0'"},
      {R"({"meta": {"api-version": "1.0"}})", "'projects'"},
      {R"({"meta": {"api-version": "1.0"}, "projects": [{"nom": "x"}]})", "'name'"},
      {R"({"meta": {"api-version": "1.0"}, "projects": ["torch"]})", "'name'"},
      {"{", "invalid JSON"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.json);
    const auto names = parse_root_json(c.json);
    REQUIRE_FALSE(names.has_value());
    CHECK_THAT(names.error().message, Catch::Contains(c.expected));
  }
}
