// The mirror's static PEP 503 pages, read back by wheelmod's own parser and
// by pip's (tests/mirror/check_page_with_pip.py), and the atomic writer.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sys/resource.h>
#include <sys/stat.h>

#include "core/errors.hpp"
#include "core/url.hpp"
#include "index/page.hpp"
#include "mirror/tree.hpp"
#include "require_parsed.hpp"
#include "temp_dir.hpp"

using wheelmod::IoError;
using wheelmod::write_if_changed;
using wheelmod::index::FileHash;
using wheelmod::mirror::encode_filename;
using wheelmod::mirror::PageFile;
using wheelmod::mirror::render_project_page;
using wheelmod::mirror::render_root_page;
using wheelmod::test::TempDir;

namespace fs = std::filesystem;

namespace {

constexpr std::string_view k_page_url = "https://mirror.example/whl/cu126/torch/";

std::string sha(char digit) { return std::string(64, digit); }

PageFile page_file(std::string filename, std::string sha256,
                   std::optional<std::string> metadata_sha256 = std::nullopt,
                   std::optional<std::string> requires_python = std::nullopt) {
  const std::string href = "../../files/" + encode_filename(filename);
  return PageFile{std::move(filename), href, std::move(sha256), std::move(metadata_sha256),
                  std::move(requires_python)};
}

// What a mirror of torch writes: a local version ('+'), a specifier with
// '<' and '>', a file without core metadata, one whose metadata has no hash,
// and names with '&', '%' and a space that only survive when encoded.
std::vector<PageFile> torch_files() {
  return {
      page_file("torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl", sha('a'), sha('b'),
                ">=3.9,<3.14"),
      page_file("torch-2.6.0+cu126-cp311-cp311-manylinux_2_28_x86_64.whl", sha('c'), sha('d'),
                "<4,>=3.9"),
      page_file("torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl", sha('e')),
      page_file("odd name&100%.whl", sha('f'), std::string{}, "!=3.10.*"),
  };
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct stat stat_of(const fs::path& path) {
  struct stat info {};
  REQUIRE(::stat(path.c_str(), &info) == 0);
  return info;
}

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

std::string run_and_capture(const std::string& command) {
  const std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
  REQUIRE(pipe != nullptr);
  std::string out;
  char buffer[4096];
  while (const std::size_t got = std::fread(buffer, 1, sizeof buffer, pipe.get())) {
    out.append(buffer, got);
  }
  return out;
}

}  // namespace

TEST_CASE("encode_filename percent-encodes what may not stand in a path segment",
          "[mirror][tree]") {
  struct {
    std::string_view input;
    std::string_view encoded;
  } const cases[] = {
      // download.pytorch.org spells the local-version '+' %2B; S3 reads a
      // bare '+' as a space.
      {"torch-2.6.0+cu126-cp312-cp312-linux_x86_64.whl",
       "torch-2.6.0%2Bcu126-cp312-cp312-linux_x86_64.whl"},
      {"100%.whl", "100%25.whl"},
      {"a b.whl", "a%20b.whl"},
      {"a/b?c#d.whl", "a%2Fb%3Fc%23d.whl"},
      {"c:d@e.whl", "c%3Ad%40e.whl"},  // a ':' in a first segment reads as a scheme
      {"\xC3\xA9.whl", "%C3%A9.whl"},
      {"AZaz09-._~!$&'()*,;=", "AZaz09-._~!$&'()*,;="},
      {"", ""},
  };
  for (const auto& c : cases) {
    CAPTURE(c.input);
    CHECK(encode_filename(std::string(c.input)) == c.encoded);
  }
}

TEST_CASE("render_project_page writes the exact PEP 503 page", "[mirror][tree]") {
  const std::string page = render_project_page(
      "torch",
      {page_file("torch-2.6.0+cpu-cp312-cp312-linux_x86_64.whl", sha('1'), sha('2'), ">=3.9"),
       page_file("torch-2.5.1+cpu-cp312-cp312-linux_x86_64.whl", sha('3'))});
  std::string expected = R"(<!DOCTYPE html>
<html>
  <head>
    <meta charset="utf-8">
    <meta name="pypi:repository-version" content="1.1">
    <title>Links for torch</title>
  </head>
  <body>
    <h1>Links for torch</h1>
    <a href="../../files/torch-2.5.1%2Bcpu-cp312-cp312-linux_x86_64.whl#sha256=<3>">torch-2.5.1+cpu-cp312-cp312-linux_x86_64.whl</a><br>
    <a href="../../files/torch-2.6.0%2Bcpu-cp312-cp312-linux_x86_64.whl#sha256=<1>" data-requires-python="&gt;=3.9" data-core-metadata="sha256=<2>" data-dist-info-metadata="sha256=<2>">torch-2.6.0+cpu-cp312-cp312-linux_x86_64.whl</a><br>
  </body>
</html>
)";
  for (const char digit : {'1', '2', '3'}) {
    const std::string mark = {'<', digit, '>'};
    for (auto at = expected.find(mark); at != std::string::npos; at = expected.find(mark)) {
      expected.replace(at, mark.size(), sha(digit));
    }
  }
  CHECK(page == expected);
}

TEST_CASE("render_project_page is deterministic and escapes every value", "[mirror][tree]") {
  std::vector<PageFile> files = torch_files();
  const std::string page = render_project_page("torch", files);
  std::reverse(files.begin(), files.end());
  files.push_back(files.front());  // a file given twice is listed once
  CHECK(render_project_page("torch", files) == page);

  CHECK(page.find("<3.14") == std::string::npos);
  CHECK(page.find("&lt;3.14") != std::string::npos);
  CHECK(page.find("odd name&amp;100%.whl</a>") != std::string::npos);
  CHECK(page.find("odd%20name&amp;100%25.whl#sha256=") != std::string::npos);
  const std::string hostile = render_project_page("<b>\"x'&", {});
  CHECK(hostile.find("<title>Links for &lt;b&gt;&quot;x&#39;&amp;</title>") != std::string::npos);
}

TEST_CASE("render_project_page round-trips through wheelmod's page parser", "[mirror][tree]") {
  const auto page = wheelmod::test::require_parsed(
      wheelmod::index::parse_project_html(render_project_page("torch", torch_files()), k_page_url),
      "rendered page");
  REQUIRE(page.links.size() == 4);
  // Sorted by file name (bytes): ' ' < digits < letters.
  const auto& odd = page.links[0];
  CHECK(odd.filename == "odd name&100%.whl");
  CHECK(odd.url == "https://mirror.example/whl/files/odd%20name&100%25.whl");
  CHECK(odd.sha256() == sha('f'));
  CHECK(odd.requires_python == "!=3.10.*");
  CHECK(odd.has_core_metadata);
  CHECK_FALSE(odd.core_metadata_hash.has_value());

  const auto& old = page.links[1];
  CHECK(old.filename == "torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl");
  CHECK(old.url ==
        "https://mirror.example/whl/files/torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl");
  CHECK(old.hashes == std::vector<FileHash>{{"sha256", sha('e')}});
  CHECK_FALSE(old.requires_python.has_value());
  CHECK_FALSE(old.has_core_metadata);

  const auto& cp311 = page.links[2];
  CHECK(cp311.filename == "torch-2.6.0+cu126-cp311-cp311-manylinux_2_28_x86_64.whl");
  CHECK(cp311.sha256() == sha('c'));
  CHECK(cp311.requires_python == "<4,>=3.9");
  CHECK(cp311.has_core_metadata);
  CHECK(cp311.core_metadata_hash == FileHash{"sha256", sha('d')});

  const auto& cp312 = page.links[3];
  CHECK(cp312.filename == "torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl");
  CHECK(cp312.url ==
        "https://mirror.example/whl/files/"
        "torch-2.6.0%2Bcu126-cp312-cp312-manylinux_2_28_x86_64.whl");
  CHECK(cp312.sha256() == sha('a'));
  CHECK(cp312.requires_python == ">=3.9,<3.14");
  CHECK(cp312.core_metadata_hash == FileHash{"sha256", sha('b')});
}

TEST_CASE("pip reads a rendered project page as wheelmod wrote it", "[mirror][tree]") {
  const TempDir dir;
  const fs::path page = dir.path() / "index.html";
  REQUIRE(write_if_changed(page, render_project_page("torch", torch_files())));
#ifdef WHEELMOD_REFERENCE_PYTHON
  const std::string python = WHEELMOD_REFERENCE_PYTHON;
#else
  const std::string python = "/usr/bin/python3";  // Debian's, with python3-pip
#endif
  const std::string script = WHEELMOD_TEST_DATA_DIR "/../mirror/check_page_with_pip.py";
  const std::string output = run_and_capture(python + " -B '" + script + "' '" + page.string() +
                                             "' --url " + std::string(k_page_url));
  INFO(output);
  const auto links = nlohmann::json::parse(output);
  REQUIRE(links.size() == 4);

  std::vector<PageFile> expected = torch_files();
  std::sort(expected.begin(), expected.end(),
            [](const PageFile& a, const PageFile& b) { return a.filename < b.filename; });
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto& link = links[i];
    const PageFile& file = expected[i];
    CAPTURE(file.filename);
    CHECK(link["filename"] == file.filename);
    // pip re-quotes the path its own way ('&' as %26); the same bytes once decoded.
    CHECK(wheelmod::percent_decode(link["url"].get<std::string>()) ==
          "https://mirror.example/whl/files/" + file.filename);
    CHECK(link["hash_name"] == "sha256");
    CHECK(link["hash"] == file.sha256);
    CHECK(link["requires_python"] ==
          (file.requires_python ? nlohmann::json(*file.requires_python) : nlohmann::json()));
    CHECK(link["has_metadata"] == file.metadata_sha256.has_value());
    if (file.metadata_sha256 && !file.metadata_sha256->empty()) {
      CHECK(link["metadata_hash_name"] == "sha256");
      CHECK(link["metadata_hash"] == *file.metadata_sha256);
      CHECK(link["data_core_metadata"] == "sha256=" + *file.metadata_sha256);
    } else {
      CHECK(link["metadata_hash"].is_null());
    }
    CHECK(link["data_core_metadata"] == link["data_dist_info_metadata"]);
  }
}

TEST_CASE("render_root_page lists each project once, sorted", "[mirror][tree]") {
  const std::string page =
      render_root_page({"torchvision", "torch", "nvidia-cublas-cu12", "torch"});
  CHECK(page == R"(<!DOCTYPE html>
<html>
  <head>
    <meta charset="utf-8">
    <meta name="pypi:repository-version" content="1.1">
    <title>Simple index</title>
  </head>
  <body>
    <h1>Simple index</h1>
    <a href="nvidia-cublas-cu12/">nvidia-cublas-cu12</a><br>
    <a href="torch/">torch</a><br>
    <a href="torchvision/">torchvision</a><br>
  </body>
</html>
)");
  const auto names =
      wheelmod::test::require_parsed(wheelmod::index::parse_root_html(page), "root page");
  CHECK(names == std::vector<std::string>{"nvidia-cublas-cu12", "torch", "torchvision"});
}

TEST_CASE("write_if_changed writes only changed bytes, by rename", "[mirror][tree]") {
  const TempDir dir;
  const fs::path file = dir.path() / "cu126" / "torch" / "index.html";
  CHECK(write_if_changed(file, "first\n"));
  CHECK(read_bytes(file) == "first\n");

  // Back-date it, so that any rewrite would show in the mtime.
  const auto old_time = fs::file_time_type::clock::now() - std::chrono::hours(24);
  fs::last_write_time(file, old_time);
  const struct stat before = stat_of(file);
  CHECK_FALSE(write_if_changed(file, "first\n"));
  const struct stat unchanged = stat_of(file);
  CHECK(unchanged.st_ino == before.st_ino);
  CHECK(fs::last_write_time(file) == old_time);

  SECTION("same size, other bytes") {
    CHECK(write_if_changed(file, "fires\n"));
    CHECK(read_bytes(file) == "fires\n");
    CHECK(stat_of(file).st_ino != before.st_ino);
  }
  SECTION("other size") {
    CHECK(write_if_changed(file, "second, longer\n"));
    CHECK(read_bytes(file) == "second, longer\n");
    CHECK(stat_of(file).st_ino != before.st_ino);
  }
  SECTION("empty") {
    CHECK(write_if_changed(file, ""));
    CHECK(fs::file_size(file) == 0);
    CHECK_FALSE(write_if_changed(file, ""));
  }
  CHECK(names_in(file.parent_path()) == std::vector<std::string>{"index.html"});
}

TEST_CASE("write_if_changed fails naming the file and leaves no temporary", "[mirror][tree]") {
  const TempDir dir;
  SECTION("a directory where the file should be") {
    fs::create_directories(dir.path() / "index.html");
    try {
      write_if_changed(dir.path() / "index.html", "x");
      FAIL("no IoError");
    } catch (const IoError& error) {
      CHECK(error.subject() == (dir.path() / "index.html").string());
      CHECK(error.cause() == "exists and is not a regular file");
    }
  }
  SECTION("a file where a directory should be") {
    dir.write("cu126", "not a directory");
    try {
      write_if_changed(dir.path() / "cu126" / "torch" / "index.html", "x");
      FAIL("no IoError");
    } catch (const IoError& error) {
      CHECK(error.subject() == (dir.path() / "cu126" / "torch").string());
      CHECK_THAT(error.cause(), Catch::StartsWith("cannot create the directory: "));
    }
  }
  SECTION("the file system refuses the bytes mid-way") {
    // RLIMIT_FSIZE makes write(2) stop short at 16 bytes, then fail with
    // EFBIG (SIGXFSZ ignored): a short write followed by an error.
    struct rlimit saved {};
    REQUIRE(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
    const auto previous = ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit limited = saved;
    limited.rlim_cur = 16;
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &limited) == 0);
    std::optional<IoError> caught;
    try {
      write_if_changed(dir.path() / "big.html", std::string(100, 'x'));
    } catch (const IoError& error) {
      caught = error;
    }
    ::setrlimit(RLIMIT_FSIZE, &saved);
    ::signal(SIGXFSZ, previous);
    REQUIRE(caught.has_value());
    CHECK(caught->subject() ==
          (dir.path() / (".big.html.tmp-" + std::to_string(::getpid()))).string());
    CHECK(caught->cause() == "cannot write: File too large");
    CHECK_FALSE(caught->hint().empty());
  }
  CHECK(names_in(dir.path()).size() <= 1);
  for (const auto& name : names_in(dir.path())) CHECK(name.find(".tmp-") == std::string::npos);
}
