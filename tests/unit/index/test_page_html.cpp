// PEP 503 HTML pages: copies of download.pytorch.org's format
// (pytorch/test-infra s3_management/manage.py), odd but valid HTML, and the
// generated sample index checked against its MANIFEST.json.
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/url.hpp"
#include "index/page.hpp"
#include "require_parsed.hpp"

using wheelmod::index::FileHash;
using wheelmod::index::Link;
using wheelmod::index::parse_project_html;
using wheelmod::index::parse_root_html;
using wheelmod::index::ProjectPage;

namespace {

constexpr std::string_view k_torch_page_url = "https://download.pytorch.org/whl/cu126/torch/";

std::string sha(char digit) { return std::string(64, digit); }

ProjectPage parse_ok(std::string_view html, std::string_view url = k_torch_page_url) {
  return wheelmod::test::require_parsed(parse_project_html(html, url), "index page");
}

std::string parse_error(std::string_view html, std::string_view url = k_torch_page_url) {
  auto page = parse_project_html(html, url);
  REQUIRE_FALSE(page.has_value());
  CHECK(page.error().input == url);
  return page.error().message;
}

// One link line as manage.py writes it (to_simple_package_html).
std::string s3_line(std::string_view href, std::string_view text,
                    std::string_view attributes = "") {
  return "    <a href=\"" + std::string(href) + "\"" + std::string(attributes) + ">" +
         std::string(text) + "</a><br/>\n";
}

std::string s3_page(std::string_view name, std::string_view lines) {
  return "<!DOCTYPE html>\n<html>\n  <body>\n    <h1>Links for " + std::string(name) + "</h1>\n" +
         std::string(lines) + "  </body>\n</html>\n<!--TIMESTAMP 1703347410-->";
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("parse_project_html reads a download.pytorch.org torch page", "[index][html]") {
  const std::string meta = " data-dist-info-metadata=\"sha256=" + sha('d') +
                           "\" data-core-metadata=\"sha256=" + sha('d') + "\"";
  const std::string html = s3_page(
      "torch",
      // S3 index: root-relative href, + as %2B, hash and metadata (manage.py).
      s3_line(
          "/whl/cu126/torch-2.6.0%2Bcu126-cp312-cp312-manylinux_2_28_x86_64.whl#sha256=" + sha('a'),
          "torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl", meta) +
          // A wheel the index lists without a hash (pytorch#153469).
          s3_line("/whl/cu126/torch-2.6.0%2Bcu126-cp312-cp312-linux_aarch64.whl",
                  "torch-2.6.0+cu126-cp312-cp312-linux_aarch64.whl") +
          // An "R2 package": absolute href on the second host, upload time.
          s3_line("https://download-r2.pytorch.org/whl/cu126/"
                  "torch-2.11.0%2Bcu126-cp313-cp313t-manylinux_2_28_x86_64.whl#sha256=" +
                      sha('b'),
                  "torch-2.11.0+cu126-cp313-cp313t-manylinux_2_28_x86_64.whl",
                  meta + " data-upload-time=\"2026-04-23T10:11:12.123456Z\""));
  const ProjectPage page = parse_ok(html);
  CHECK(page.url == k_torch_page_url);
  CHECK(page.name.empty());  // the <h1> is not a standard source of the name
  REQUIRE(page.links.size() == 3);

  struct {
    std::string filename;
    std::string url;
    std::optional<std::string> sha256;
    bool metadata;
    std::optional<std::string> upload_time;
  } const expected[] = {
      {"torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl",
       "https://download.pytorch.org/whl/cu126/"
       "torch-2.6.0%2Bcu126-cp312-cp312-manylinux_2_28_x86_64.whl",
       sha('a'), true, std::nullopt},
      {"torch-2.6.0+cu126-cp312-cp312-linux_aarch64.whl",
       "https://download.pytorch.org/whl/cu126/torch-2.6.0%2Bcu126-cp312-cp312-linux_aarch64.whl",
       std::nullopt, false, std::nullopt},
      {"torch-2.11.0+cu126-cp313-cp313t-manylinux_2_28_x86_64.whl",
       "https://download-r2.pytorch.org/whl/cu126/"
       "torch-2.11.0%2Bcu126-cp313-cp313t-manylinux_2_28_x86_64.whl",
       sha('b'), true, "2026-04-23T10:11:12.123456Z"},
  };
  for (std::size_t i = 0; i < page.links.size(); ++i) {
    const Link& link = page.links[i];
    CAPTURE(i, link.filename);
    CHECK(link.filename == expected[i].filename);
    CHECK(link.url == expected[i].url);
    CHECK(link.sha256() == expected[i].sha256);
    CHECK(link.hashes.size() == (expected[i].sha256 ? 1U : 0U));
    CHECK(link.has_core_metadata == expected[i].metadata);
    CHECK(link.core_metadata_hash == (expected[i].metadata
                                          ? std::optional<FileHash>(FileHash{"sha256", sha('d')})
                                          : std::nullopt));
    CHECK(link.core_metadata_url() == expected[i].url + ".metadata");
    CHECK(link.upload_time == expected[i].upload_time);
    CHECK_FALSE(link.requires_python.has_value());
    CHECK_FALSE(link.yanked.has_value());
    CHECK_FALSE(link.size.has_value());
  }
}

TEST_CASE("parse_project_html decodes the networkx data-requires-python", "[index][html]") {
  // The one data-requires-python download.pytorch.org writes (pytorch#152191);
  // the digest here is illustrative.
  const std::string digest = "28575580c6ebdaf4505b22c6256a2b9de86b316dc63ba9e93abde3d78dfdbcf2";
  const std::string html = s3_page(
      "networkx",
      s3_line("/whl/networkx-3.3-py3-none-any.whl#sha256=" + digest,
              "networkx-3.3-py3-none-any.whl", " data-requires-python=\"&gt;=3.10\"") +
          s3_line("/whl/networkx-3.2.1-py3-none-any.whl#sha256=" + sha('c'),
                  "networkx-3.2.1-py3-none-any.whl", " data-requires-python=\"&gt;=3.9,&lt;4\"") +
          s3_line("/whl/networkx-2.0.zip", "networkx-2.0.zip", " data-requires-python=\"\""));
  const ProjectPage page = parse_ok(html, "https://download.pytorch.org/whl/cu126/networkx/");
  REQUIRE(page.links.size() == 3);
  CHECK(page.links[0].url == "https://download.pytorch.org/whl/networkx-3.3-py3-none-any.whl");
  CHECK(page.links[0].sha256() == digest);
  CHECK(page.links[0].requires_python == ">=3.10");
  CHECK(page.links[1].requires_python == ">=3.9,<4");
  CHECK_FALSE(page.links[2].requires_python.has_value());  // empty: no constraint (as pip)
}

TEST_CASE("parse_project_html accepts any quoting and case HTML5 allows", "[index][html]") {
  const std::string html =
      "<html><body>\n"
      "<a href='/whl/a-1.0-py3-none-any.whl#sha256=" +
      sha('1') +
      "' data-yanked='bad build'>a</a>\n"
      "<a href=/whl/b-1.0-py3-none-any.whl#sha256=" +
      sha('2') +
      " data-core-metadata=true>b</a>\n"
      "<A HREF=\"/whl/c-1.0-py3-none-any.whl\" DATA-REQUIRES-PYTHON=\"&gt;=3.8\">c</A>\n"
      "<a\n  href = \"/whl/d-1.0-py3-none-any.whl\"\n  data-yanked>d</a>\n"
      "<a href=\"/whl/e-1.0-py3-none-any.whl#SHA256=" +
      std::string(64, 'F') +
      "\">e</a>\n"
      "</body></html>";
  const ProjectPage page = parse_ok(html);
  REQUIRE(page.links.size() == 5);
  CHECK(page.links[0].filename == "a-1.0-py3-none-any.whl");
  CHECK(page.links[0].sha256() == sha('1'));
  CHECK(page.links[0].yanked == "bad build");
  CHECK(page.links[1].url == "https://download.pytorch.org/whl/b-1.0-py3-none-any.whl");
  CHECK(page.links[1].sha256() == sha('2'));
  CHECK(page.links[1].has_core_metadata);
  CHECK_FALSE(page.links[1].core_metadata_hash.has_value());
  CHECK(page.links[2].filename == "c-1.0-py3-none-any.whl");
  CHECK(page.links[2].requires_python == ">=3.8");
  CHECK(page.links[3].filename == "d-1.0-py3-none-any.whl");
  CHECK(page.links[3].yanked == "");          // PEP 592: present without a reason
  CHECK(page.links[4].sha256() == sha('f'));  // hex lower-cased
}

TEST_CASE("parse_project_html decodes character references in hrefs", "[index][html]") {
  struct {
    std::string href;
    std::string filename;
    std::string url;
  } const cases[] = {
      {"/whl/x-1.0-py3-none-any.whl?a=1&amp;b=2", "x-1.0-py3-none-any.whl",
       "https://download.pytorch.org/whl/x-1.0-py3-none-any.whl?a=1&b=2"},
      // uv's parse_escaped_fragment case: &#43; is `+`.
      {"/whl/Jinja2-3.1.2&#43;233fca715f49-py3-none-any.whl",
       "Jinja2-3.1.2+233fca715f49-py3-none-any.whl",
       "https://download.pytorch.org/whl/Jinja2-3.1.2%2B233fca715f49-py3-none-any.whl"},
      {"/whl/y-1.0&#x2B;cpu-py3-none-any.whl", "y-1.0+cpu-py3-none-any.whl",
       "https://download.pytorch.org/whl/y-1.0%2Bcpu-py3-none-any.whl"},
      {"/whl/z%201.0.tar.gz", "z 1.0.tar.gz", "https://download.pytorch.org/whl/z%201.0.tar.gz"},
      // Characters a URL may not hold are encoded, as pip and uv do.
      {"/whl/w 1.0.tar.gz", "w 1.0.tar.gz", "https://download.pytorch.org/whl/w%201.0.tar.gz"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.href);
    const ProjectPage page = parse_ok("<a href=\"" + c.href + "\">file</a>");
    REQUIRE(page.links.size() == 1);
    CHECK(page.links[0].filename == c.filename);
    CHECK(page.links[0].url == c.url);
  }
}

TEST_CASE("parse_project_html reads the hash algorithms of a URL fragment", "[index][html]") {
  struct {
    std::string fragment;
    std::vector<FileHash> hashes;
  } const cases[] = {
      {"sha256=" + sha('a'), {{"sha256", sha('a')}}},
      {"sha384=" + std::string(96, 'b'), {{"sha384", std::string(96, 'b')}}},
      {"sha512=" + std::string(128, 'c'), {{"sha512", std::string(128, 'c')}}},
      {"md5=" + std::string(32, 'd'), {{"md5", std::string(32, 'd')}}},
      {"blake2b=" + std::string(64, 'e'), {{"blake2b", std::string(64, 'e')}}},
      {"egg=torch", {}},
      {"sha1=" + std::string(40, 'a'), {}},  // not an algorithm pip or uv reads
      {"", {}},
      {"sha256=", {}},  // an empty digest is no digest
      {"junk", {}},
      {"sha256=" + sha('a') + "&egg=torch", {{"sha256", sha('a')}}},
      {"sha256%3D" + sha('a'), {{"sha256", sha('a')}}},  // uv percent-decodes the fragment
  };
  for (const auto& c : cases) {
    CAPTURE(c.fragment);
    const ProjectPage page =
        parse_ok("<a href=\"/whl/x-1.0-py3-none-any.whl#" + c.fragment + "\">x</a>");
    REQUIRE(page.links.size() == 1);
    CHECK(page.links[0].hashes == c.hashes);
    CHECK(page.links[0].url == "https://download.pytorch.org/whl/x-1.0-py3-none-any.whl");
  }
}

TEST_CASE("parse_project_html rejects a malformed digest, naming the file", "[index][html]") {
  const std::string cases[] = {"sha256=xyz", "sha256=" + sha('a') + "0", "md5=" + sha('a'),
                               "sha256=" + std::string(63, 'a') + "g"};
  for (const auto& fragment : cases) {
    CAPTURE(fragment);
    const std::string message =
        parse_error("<a href=\"/whl/x-1.0-py3-none-any.whl#" + fragment + "\">x</a>");
    CHECK_THAT(message, Catch::Contains("x-1.0-py3-none-any.whl") && Catch::Contains("malformed") &&
                            Catch::Contains("digest"));
  }
}

TEST_CASE("parse_project_html follows PEP 714 for core metadata", "[index][html]") {
  struct {
    std::string attributes;
    bool present;
    std::optional<FileHash> hash;
  } const cases[] = {
      {"", false, std::nullopt},
      {" data-core-metadata=\"true\"", true, std::nullopt},
      {" data-core-metadata=\"false\"", false, std::nullopt},
      {" data-core-metadata=\"sha256=" + sha('a') + "\"", true, FileHash{"sha256", sha('a')}},
      {" data-dist-info-metadata=\"sha256=" + sha('b') + "\"", true, FileHash{"sha256", sha('b')}},
      {" data-dist-info-metadata=\"true\"", true, std::nullopt},
      // Both names: the new one wins (PEP 714), even when it says false.
      {" data-dist-info-metadata=\"sha256=" + sha('b') +
           "\" data-core-metadata=\"sha256=" + sha('a') + "\"",
       true, FileHash{"sha256", sha('a')}},
      {" data-core-metadata=\"false\" data-dist-info-metadata=\"true\"", false, std::nullopt},
      {" data-core-metadata=\"true\" data-dist-info-metadata=\"sha256=" + sha('b') + "\"", true,
       std::nullopt},
      // PEP 658: the attribute's presence says the file exists.
      {" data-core-metadata", true, std::nullopt},
      {" data-core-metadata=\"sha1=abc\"", true, std::nullopt},
      {" data-core-metadata=\"sha512=" + std::string(128, 'C') + "\"", true,
       FileHash{"sha512", std::string(128, 'c')}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.attributes);
    const ProjectPage page =
        parse_ok("<a href=\"/whl/x-1.0-py3-none-any.whl\"" + c.attributes + ">x</a>");
    REQUIRE(page.links.size() == 1);
    CHECK(page.links[0].has_core_metadata == c.present);
    CHECK(page.links[0].core_metadata_hash == c.hash);
  }
}

TEST_CASE("parse_project_html rejects a malformed core metadata digest", "[index][html]") {
  const std::string message =
      parse_error("<a href=\"/whl/x-1.0-py3-none-any.whl\" data-core-metadata=\"sha256=zz\">x</a>");
  CHECK_THAT(message,
             Catch::Contains("x-1.0-py3-none-any.whl") && Catch::Contains("core metadata"));
}

TEST_CASE("parse_project_html honours the first <base href>", "[index][html]") {
  struct {
    std::string head;
    std::string page_url;
    std::string expected;
  } const cases[] = {
      {"<base href=\"https://index.python.org/\">", "https://download.pytorch.org/whl/jinja2/",
       "https://index.python.org/whl/Jinja2-3.1.2-py3-none-any.whl"},
      // A relative base is resolved against the page URL.
      {"<base href=\"../mirror/sub/\">", "https://h/simple/jinja2/",
       "https://h/simple/mirror/whl/Jinja2-3.1.2-py3-none-any.whl"},
      {"<base href=\"//mirror.example/a/b/\">", "https://h/simple/",
       "https://mirror.example/a/whl/Jinja2-3.1.2-py3-none-any.whl"},
      {"<base href=\"https://first/\"><base href=\"https://second/\">", "https://h/simple/",
       "https://first/whl/Jinja2-3.1.2-py3-none-any.whl"},
      // A <base> without href sets nothing (HTML "The base element").
      {"<base target=\"_blank\"><base href=\"https://second/\">", "https://h/simple/",
       "https://second/whl/Jinja2-3.1.2-py3-none-any.whl"},
      {"", "https://h/simple/", "https://h/whl/Jinja2-3.1.2-py3-none-any.whl"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.head);
    const std::string html = "<!DOCTYPE html><html><head>" + c.head +
                             "</head><body><a href=\"../whl/Jinja2-3.1.2-py3-none-any.whl\">"
                             "Jinja2-3.1.2-py3-none-any.whl</a></body></html>";
    const ProjectPage page = parse_ok(html, c.page_url);
    REQUIRE(page.links.size() == 1);
    CHECK(page.links[0].url == c.expected);
    CHECK(page.url == c.page_url);
  }
}

TEST_CASE("parse_project_html keeps each link's own host", "[index][html]") {
  // A mirrored dependency page (pytorch/test-infra
  // s3_management/update_dependencies.py) next to torch's own files.
  const std::string html = s3_page(
      "mixed",
      s3_line(
          "https://files.pythonhosted.org/packages/ab/cd/sympy-1.13.1-py3-none-any.whl#sha256=" +
              sha('1'),
          "sympy-1.13.1-py3-none-any.whl") +
          s3_line("https://pypi.nvidia.com/nvidia-cudnn-cu12/"
                  "nvidia_cudnn_cu12-9.5.1.17-py3-none-manylinux_2_28_x86_64.whl",
                  "nvidia_cudnn_cu12-9.5.1.17-py3-none-manylinux_2_28_x86_64.whl") +
          s3_line("/whl/cu124/nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux2014_x86_64.whl",
                  "nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux2014_x86_64.whl") +
          s3_line("../../torch-2.6.0%2Bcu126-cp312-cp312-manylinux_2_28_x86_64.whl",
                  "torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl") +
          s3_line("//d21usjoq99fcb9.cloudfront.net/whl/x-1.0-py3-none-any.whl", "x"));
  const ProjectPage page = parse_ok(html);
  const std::vector<std::string> urls = {
      "https://files.pythonhosted.org/packages/ab/cd/sympy-1.13.1-py3-none-any.whl",
      "https://pypi.nvidia.com/nvidia-cudnn-cu12/"
      "nvidia_cudnn_cu12-9.5.1.17-py3-none-manylinux_2_28_x86_64.whl",
      "https://download.pytorch.org/whl/cu124/"
      "nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux2014_x86_64.whl",
      "https://download.pytorch.org/whl/torch-2.6.0%2Bcu126-cp312-cp312-manylinux_2_28_x86_64.whl",
      "https://d21usjoq99fcb9.cloudfront.net/whl/x-1.0-py3-none-any.whl",
  };
  REQUIRE(page.links.size() == urls.size());
  for (std::size_t i = 0; i < urls.size(); ++i) {
    CAPTURE(i);
    CHECK(page.links[i].url == urls[i]);
  }
}

TEST_CASE("parse_project_html keeps a file listed twice with the same hash once", "[index][html]") {
  const std::string line_a =
      s3_line("/whl/cu126/torch-2.6.0%2Bcu126-cp312-cp312-linux_aarch64.whl#sha256=" + sha('a'),
              "torch-2.6.0+cu126-cp312-cp312-linux_aarch64.whl");
  const std::string other = s3_line("/whl/cu126/torch-2.6.0%2Bcu126-cp313-cp313-linux_aarch64.whl",
                                    "torch-2.6.0+cu126-cp313-cp313-linux_aarch64.whl");
  // The same URL spelt absolute, without its hash but with metadata: one
  // file, whose entries are merged.
  const std::string same_url = s3_line(
      "https://download.pytorch.org/whl/cu126/torch-2.6.0%2Bcu126-cp312-cp312-linux_aarch64.whl",
      "torch-2.6.0+cu126-cp312-cp312-linux_aarch64.whl", " data-core-metadata=\"true\"");
  const ProjectPage page = parse_ok(s3_page("torch", line_a + other + line_a + same_url));
  REQUIRE(page.links.size() == 2);
  CHECK(page.links[0].filename == "torch-2.6.0+cu126-cp312-cp312-linux_aarch64.whl");
  CHECK(page.links[0].url ==
        "https://download.pytorch.org/whl/cu126/torch-2.6.0%2Bcu126-cp312-cp312-linux_aarch64.whl");
  CHECK(page.links[0].hashes == std::vector<FileHash>{{"sha256", sha('a')}});
  CHECK(page.links[0].has_core_metadata);
  CHECK(page.links[1].filename == "torch-2.6.0+cu126-cp313-cp313-linux_aarch64.whl");
}

TEST_CASE("parse_project_html keeps one name under two URLs as two files", "[index][html]") {
  // /whl/torchaudio/ lists every variant directory (manage.py gen_file_list): the cpu
  // and cu126 aarch64 builds share a name and differ in content.
  const std::string name = "torchaudio-2.6.0-cp312-cp312-linux_aarch64.whl";
  const ProjectPage page = parse_ok(
      s3_page("torchaudio", s3_line("/whl/cpu/" + name + "#sha256=" + sha('a'), name) +
                                s3_line("/whl/cu126/" + name + "#sha256=" + sha('b'), name) +
                                s3_line("/whl/rocm6.2.4/" + name, name)),
      "https://download.pytorch.org/whl/torchaudio/");
  REQUIRE(page.links.size() == 3);
  CHECK(page.links[0].url == "https://download.pytorch.org/whl/cpu/" + name);
  CHECK(page.links[0].sha256() == sha('a'));
  CHECK(page.links[1].url == "https://download.pytorch.org/whl/cu126/" + name);
  CHECK(page.links[1].sha256() == sha('b'));
  CHECK(page.links[2].hashes.empty());  // never borrows another file's hash
}

TEST_CASE("parse_project_html rejects a file listed twice with different hashes", "[index][html]") {
  const std::string html = s3_page(
      "torch",
      s3_line("/whl/cu126/torch-2.6.0%2Bcu126-cp312-cp312-linux_aarch64.whl#sha256=" + sha('a'),
              "torch-2.6.0+cu126-cp312-cp312-linux_aarch64.whl") +
          s3_line("../torch-2.6.0%2Bcu126-cp312-cp312-linux_aarch64.whl#sha256=" + sha('b'),
                  "torch-2.6.0+cu126-cp312-cp312-linux_aarch64.whl"));
  const std::string message = parse_error(html);
  CHECK_THAT(message, Catch::Contains("torch-2.6.0+cu126-cp312-cp312-linux_aarch64.whl") &&
                          Catch::Contains(sha('a')) && Catch::Contains(sha('b')));

  const std::string metadata =
      s3_page("torch", s3_line("/whl/x-1.0-py3-none-any.whl", "x",
                               " data-core-metadata=\"sha256=" + sha('a') + "\"") +
                           s3_line("/whl/x-1.0-py3-none-any.whl", "x",
                                   " data-core-metadata=\"sha256=" + sha('b') + "\""));
  CHECK_THAT(parse_error(metadata), Catch::Contains("x-1.0-py3-none-any.whl") &&
                                        Catch::Contains("core metadata") &&
                                        Catch::Contains(sha('b')));
}

TEST_CASE("parse_project_html reads a page of thousands of links", "[index][html]") {
  std::string lines;
  std::vector<std::string> names;
  for (int minor = 0; minor < 40; ++minor) {
    for (int patch = 0; patch < 25; ++patch) {
      for (const char* python : {"cp310", "cp311", "cp312", "cp313", "cp313t"}) {
        const std::string version = "2." + std::to_string(minor) + "." + std::to_string(patch);
        const std::string abi = python == std::string_view("cp313t") ? "cp313t" : python;
        const std::string py = python == std::string_view("cp313t") ? "cp313" : python;
        const std::string name =
            "torch-" + version + "+cu126-" + py + "-" + abi + "-manylinux_2_28_x86_64.whl";
        std::string href = "/whl/cu126/" + name;
        href.replace(href.find('+'), 1, "%2B");
        lines += s3_line(href + "#sha256=" + sha(static_cast<char>('a' + names.size() % 6)), name);
        names.push_back(name);
      }
    }
  }
  const ProjectPage page = parse_ok(s3_page("torch", lines));
  REQUIRE(page.links.size() == 5000);
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (page.links[i].filename != names[i] ||
        page.links[i].sha256() != sha(static_cast<char>('a' + i % 6))) {
      CAPTURE(i, page.links[i].filename);
      FAIL("link differs");
    }
  }
  CHECK(page.links.back().url ==
        "https://download.pytorch.org/whl/cu126/"
        "torch-2.39.24%2Bcu126-cp313-cp313t-manylinux_2_28_x86_64.whl");
}

TEST_CASE("parse_project_html finds no links in pages without files", "[index][html]") {
  const std::string cases[] = {
      "", "<!DOCTYPE html><html><body><h1>Links for torch</h1></body></html>",
      "{\"meta\": {\"api-version\": \"1.1\"}, \"name\": \"torch\", \"files\": []}",
      std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR\xff\xfe", 18),
      "<a name=\"top\">no href</a><a href=\"../\">parent</a><a href=\"#top\">top</a><a "
      "href=\"\">x</a>",
      // Names that a decoded %2F, %2E or %00 would turn into paths.
      "<a href=\"/x/..%2F..%2Fevil-1.0.tar.gz\">a</a><a href=\"/x/%2E%2E\">b</a>"
      "<a href=\"/x/%2e\">c</a><a href=\"/x/a%00b.whl\">d</a><a href=\"/x/a%5Cb.whl\">e</a>",
      "<?xml version=\"1.0\"?><Error><Code>AccessDenied</Code></Error>",  // S3's 403 body
  };
  for (const auto& html : cases) {
    CAPTURE(html);
    CHECK(parse_ok(html).links.empty());
  }
}

TEST_CASE("parse_project_html finds links anywhere in broken markup", "[index][html]") {
  const std::string html =
      "<table><tr><td><a href=\"a-1.0.tar.gz\">a</td></tr></table>"
      "<p><b><a href=\"b-1.0.tar.gz\">b</b></p>"
      "<div><div><div><a href=\"c-1.0.tar.gz\">c";
  const ProjectPage page = parse_ok(html, "https://h/simple/x/");
  REQUIRE(page.links.size() == 3);
  CHECK(page.links[0].url == "https://h/simple/x/a-1.0.tar.gz");
  CHECK(page.links[1].url == "https://h/simple/x/b-1.0.tar.gz");
  CHECK(page.links[2].url == "https://h/simple/x/c-1.0.tar.gz");
}

TEST_CASE("parse_project_html reads markup as pip's html.parser does", "[index][html]") {
  // pip reads pages with html.parser (pip/_internal/index/collector.py), not an HTML5 parser;
  // wheelmod reads them as it does (src/index/html_anchors.hpp). Where gumbo (HTML5) read these
  // otherwise, the comment says how.
  const std::string dir = "https://h/simple/x/";
  struct {
    std::string html;
    std::vector<std::string> urls;
  } const cases[] = {
      // Duplicate attributes: the last, as pip's dict(attrs) (HTML5: the first).
      {"<a href=\"a-1.0.tar.gz\" href=\"b-1.0.tar.gz\">x</a>", {dir + "b-1.0.tar.gz"}},
      // Only script and style hold raw text (HTML5: also title, textarea, ...).
      {"<title><a href=t-1.0.tar.gz>t</a></title><textarea><a href=u-1.0.tar.gz>u</a>",
       {dir + "t-1.0.tar.gz", dir + "u-1.0.tar.gz"}},
      {"<script><a href=s-1.0.tar.gz>s</a></script><a href=t-1.0.tar.gz>t</a>",
       {dir + "t-1.0.tar.gz"}},
      // A comment ends at `--`, spaces, `>` (HTML5: only at `-->` or `--!>`).
      {"<!-- x -- ><a href=c-1.0.tar.gz>c</a>", {dir + "c-1.0.tar.gz"}},
      // What is never closed hides the rest of the page: html.parser waits for more input, and
      // pip never calls close().
      {"<a href=a-1.0.tar.gz>a</a><!-- <a href=b-1.0.tar.gz>b</a>", {dir + "a-1.0.tar.gz"}},
      {"<a href=a-1.0.tar.gz>a</a><a href='b-1.0.tar.gz>b</a><a href=c-1.0.tar.gz>c</a>",
       {dir + "a-1.0.tar.gz"}},
      // The first <base href> applies to every link, also those before it.
      {"<a href=x-1.0.tar.gz>x</a><base href=https://other/dir/>",
       {"https://other/dir/x-1.0.tar.gz"}},
      // A <base href> without a value sets nothing (HTML5: the page's own URL).
      {"<base href><base href=https://second/><a href=x-1.0.tar.gz>x</a>",
       {"https://second/x-1.0.tar.gz"}},
      // html.unescape decodes a legacy name before '=' (HTML5 keeps "&copy=" in attributes).
      {"<a href=\"x-1.0.tar.gz?a=1&copy=2\">x</a>", {dir + "x-1.0.tar.gz?a=1%C2%A9=2"}},
      // An href without a value, or an empty one, is no link.
      {"<a href>a</a><a href=\"\">b</a>", {}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.html);
    const ProjectPage page = parse_ok(c.html, dir);
    std::vector<std::string> urls;
    for (const Link& link : page.links) urls.push_back(link.url);
    CHECK(urls == c.urls);
  }
}

TEST_CASE("parse_project_html checks the PEP 629 repository version", "[index][html]") {
  const std::string link = "<a href=\"x-1.0.tar.gz\">x</a>";
  for (const std::string version : {"1.0", "1.1", "1.4", "1"}) {
    CAPTURE(version);
    const std::string html = "<html><head><meta name=\"pypi:repository-version\" content=\"" +
                             version + "\"></head>" + "<body>" + link + "</body></html>";
    CHECK(parse_ok(html).links.size() == 1);
  }
  for (const std::string version : {"2.0", "0.9", "", "v1"}) {
    CAPTURE(version);
    const std::string html =
        "<meta name=\"pypi:repository-version\" content=\"" + version + "\">" + link;
    CHECK_THAT(parse_error(html),
               Catch::Contains("'" + version + "'") && Catch::Contains("PEP 629"));
  }
}

TEST_CASE("parse_root_html lists the project names as written", "[index][html]") {
  // /whl/<variant>/index.html (manage.py to_simple_packages_html), with odd markup after it.
  const std::string html =
      "<!DOCTYPE html>\n<html>\n  <body>\n"
      "    <a href=\"filelock/\">filelock</a><br/>\n"
      "    <a href=\"nvidia-cudnn-cu12/\">nvidia-cudnn-cu12</a><br/>\n"
      "    <a href=\"torch/\">torch</a><br/>\n"
      "    <a href=\"typing-extensions/\">Typing-Extensions</a><br/>\n"
      "    <A HREF=jinja2/>\n   Jinja2\n  </A>\n"
      "    <a href=\"x/\"><b>bold</b>-name</a>\n"
      "    <a href=\"empty/\">   </a><a name=\"nohref\">anchor</a>\n"
      "  </body>\n</html>\n<!--TIMESTAMP 1703347410-->";
  const auto names = parse_root_html(html);
  REQUIRE(names.has_value());
  CHECK(*names == std::vector<std::string>{"filelock", "nvidia-cudnn-cu12", "torch",
                                           "Typing-Extensions", "Jinja2", "bold-name"});
  CHECK(parse_root_html("")->empty());
  CHECK_FALSE(
      parse_root_html("<meta name=\"pypi:repository-version\" content=\"2.0\"><a href=a>a</a>"));
}

TEST_CASE("parse_project_html reads every page of the sample index as MANIFEST.json says",
          "[index][html]") {
  namespace fs = std::filesystem;
  const fs::path root = WHEELMOD_SAMPLE_INDEX_DIR;
  const std::string manifest_text = read_file(root / "MANIFEST.json");
  REQUIRE_FALSE(manifest_text.empty());
  const auto manifest = nlohmann::json::parse(manifest_text);

  // page -> {wheel URL -> wheel entry}. A URL, not a name: the prefix-root
  // pages list one name from two variant directories, as the real index does.
  // Pages also link PEP 825 variant wheels and their `*-variants.json` (a page lists every file
  // of the project; choosing among them is the resolver's business, not the parser's).
  std::map<std::string, std::map<std::string, nlohmann::json>> expected;
  for (const char* list : {"wheels", "variant_wheels", "index_files"}) {
    for (const auto& wheel : manifest.value(list, nlohmann::json::array())) {
      const std::string url =
          wheelmod::to_url((root / wheel.at("path").get<std::string>()).string());
      for (const auto& page : wheel.at("pages")) expected[page.get<std::string>()][url] = wheel;
    }
  }
  REQUIRE(expected.size() > 20);
  std::size_t links_checked = 0;
  for (const auto& [page_path, wheels] : expected) {
    CAPTURE(page_path);
    const std::string page_url = wheelmod::to_url((root / page_path).string());
    const ProjectPage page = parse_ok(read_file(root / page_path), page_url);
    CHECK(page.links.size() == wheels.size());
    for (const Link& link : page.links) {
      CAPTURE(link.url);
      const auto found = wheels.find(link.url);
      REQUIRE(found != wheels.end());
      const auto& wheel = found->second;
      CHECK(link.filename == wheel.at("filename").get<std::string>());
      if (wheel.at("has_hash_on_index").get<bool>()) {
        CHECK(link.sha256() == wheel.at("sha256").get<std::string>());
      } else {
        CHECK(link.hashes.empty());
      }
      CHECK(link.has_core_metadata == wheel.at("has_metadata_file").get<bool>());
      if (link.has_core_metadata) {
        CHECK(link.core_metadata_hash ==
              FileHash{"sha256", wheel.at("metadata_sha256").get<std::string>()});
      }
      const auto& requires_python = wheel.at("data_requires_python");
      CHECK(link.requires_python == (requires_python.is_null()
                                         ? std::nullopt
                                         : std::optional(requires_python.get<std::string>())));
      ++links_checked;
    }
  }
  CHECK(links_checked >= manifest.at("wheels").size());

  // The listing pages: every project directory under them.
  std::set<std::string> project_pages;
  for (const auto& [page_path, wheels] : expected) project_pages.insert(page_path);
  for (const auto& page : manifest.at("pages")) {
    const std::string path = page.get<std::string>();
    if (project_pages.contains(path)) continue;
    CAPTURE(path);
    const std::string directory =
        path.substr(0, path.size() - std::string_view("index.html").size());
    std::vector<std::string> listed;
    for (const auto& project : project_pages) {
      const auto rest = std::string_view(project).substr(
          project.starts_with(directory) ? directory.size() : project.size());
      if (!rest.empty() && rest.find('/') == rest.rfind('/')) {
        listed.push_back(std::string(rest.substr(0, rest.find('/'))));
      }
    }
    // The prefix root also names its sub-directories with an index.html of their own (cu126/,
    // variant/, ...): test-infra manage_v2.py's to_simple_packages_html adds every
    // <name>/index.html below the prefix, projects or not.
    for (const auto& other : manifest.at("pages")) {
      const std::string other_path = other.get<std::string>();
      if (project_pages.contains(other_path) || !other_path.starts_with(directory)) continue;
      const auto rest = std::string_view(other_path).substr(directory.size());
      if (rest.ends_with("/index.html") && rest.find('/') == rest.size() - 11)
        listed.emplace_back(rest.substr(0, rest.size() - 11));
    }
    std::ranges::sort(listed);
    const auto names = parse_root_html(read_file(root / path));
    REQUIRE(names.has_value());
    CHECK(*names == listed);
  }
}

TEST_CASE("parse_root_listing reads PEP 503 roots and web servers' directory listings",
          "[index][html]") {
  using wheelmod::index::parse_root_listing;
  const auto names = [](std::string_view html, std::string_view url) {
    std::map<std::string, std::string> out;
    for (auto& entry : wheelmod::test::require_parsed(parse_root_listing(html, url), "listing"))
      out.emplace(entry.name, entry.url);
    return out;
  };
  SECTION("a PEP 503 root: the anchor's text, the href resolved") {
    const auto found = names(
        R"(<!DOCTYPE html><html><body><a href="/simple/torch/">torch</a>
<a href="/simple/nvidia-cublas-cu12/">nvidia-cublas-cu12</a></body></html>)",
        "https://proxy.example/simple/");
    CHECK(found == std::map<std::string, std::string>{
                       {"torch", "https://proxy.example/simple/torch/"},
                       {"nvidia-cublas-cu12", "https://proxy.example/simple/nvidia-cublas-cu12/"}});
  }
  SECTION("a listing's 'torch/' is the project torch") {
    CHECK(names(R"(<a href="torch/">torch/</a>)", "http://h/simple/") ==
          std::map<std::string, std::string>{{"torch", "http://h/simple/torch/"}});
  }
  SECTION("nginx autoindex: ../ skipped, names from the href (the text is cut at 50 characters)") {
    const auto found = names(
        "<html>\r\n<head><title>Index of /m/</title></head>\r\n<body>\r\n<h1>Index of "
        "/m/</h1><hr><pre><a href=\"../\">../</a>\r\n"
        "<a href=\"cu129/\">cu129/</a>                                             "
        "07-Dec-2026 03:59                   -\r\n"
        "<a href=\"nvidia-cuda-cupti-cu12-with-a-name-over-fifty-chars-x/\">"
        "nvidia-cuda-cupti-cu12-with-a-name-over-fifty-c..&gt;</a> 07-Dec-2026 03:59 -\r\n"
        "<a href=\"wheelmod-mirror.json\">wheelmod-mirror.json</a>   07-Dec-2026 03:59  "
        "1234\r\n</pre><hr></body>\r\n</html>\r\n",
        "http://127.0.0.1:8080/m/");
    CHECK(found == std::map<std::string, std::string>{
                       {"cu129", "http://127.0.0.1:8080/m/cu129/"},
                       {"nvidia-cuda-cupti-cu12-with-a-name-over-fifty-chars-x",
                        "http://127.0.0.1:8080/m/nvidia-cuda-cupti-cu12-with-a-name-over-fifty-"
                        "chars-x/"},
                       {"wheelmod-mirror.json", "http://127.0.0.1:8080/m/wheelmod-mirror.json"}});
  }
  SECTION("python3 -m http.server") {
    const auto found = names(
        "<!DOCTYPE HTML>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Directory "
        "listing for /</title>\n</head>\n<body>\n<h1>Directory listing for /</h1>\n<hr>\n<ul>\n"
        "<li><a href=\"cu126/\">cu126/</a></li>\n<li><a href=\"Torch_/\">Torch_/</a></li>\n"
        "</ul>\n<hr>\n</body>\n</html>\n",
        "http://127.0.0.1:8000/");
    CHECK(found == std::map<std::string, std::string>{{"cu126", "http://127.0.0.1:8000/cu126/"},
                                                      {"Torch_", "http://127.0.0.1:8000/Torch_/"}});
  }
  SECTION("Apache: sort links and the parent directory are no entries") {
    const auto found = names(
        R"(<table><tr><th><a href="?C=N;O=D">Name</a></th><th><a href="?C=M;O=A">Last modified</a></th></tr>
<tr><td valign="top"><img src="/icons/back.gif" alt="[PARENTDIR]"></td><td><a href="/whl/">Parent Directory</a></td></tr>
<tr><td valign="top"><img src="/icons/folder.gif" alt="[DIR]"></td><td><a href="cu126/">cu126/</a></td></tr>
<tr><td><a href="nvidia%2Dnccl%2Dcu12/">nvidia-nccl-cu12/</a></td></tr></table>)",
        "https://site/whl/");
    CHECK(found == std::map<std::string, std::string>{
                       {"cu126", "https://site/whl/cu126/"},
                       {"nvidia-nccl-cu12", "https://site/whl/nvidia%2Dnccl%2Dcu12/"}});
  }
}
