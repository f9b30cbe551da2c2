// IndexLayout over real trees on disk (file://), one per shape a site serves:
// download.pytorch.org's, variant directories only, a single-variant PEP 503 index, a directory
// spelled otherwise than its PEP 503 name. The same shapes over HTTP, with pip as the oracle:
// tests/conformance.
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "core/url.hpp"
#include "index/page.hpp"
#include "index_client/index_layout.hpp"
#include "net/fetcher.hpp"
#include "temp_dir.hpp"

using namespace wheelmod;
using namespace wheelmod::index_client;
namespace fs = std::filesystem;

namespace {

constexpr std::string_view k_cu126_x86 =
    "torch-2.6.0%2Bcu126-cp312-cp312-manylinux_2_28_x86_64.whl";
constexpr std::string_view k_cpu_x86 = "torch-2.6.0%2Bcpu-cp312-cp312-linux_x86_64.whl";

void write(const fs::path& path, std::string_view text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string anchor(std::string_view href) {
  return "<a href=\"" + std::string(href) + "\">" +
         percent_decode(href.substr(href.rfind('/') + 1)) + "</a>\n";
}

std::set<std::string> filenames(const index::ProjectPage& page) {
  std::set<std::string> out;
  for (const auto& link : page.links) out.insert(link.filename);
  return out;
}

}  // namespace

TEST_CASE("local_label reads the local version label of a wheel's file name",
          "[index_client][layout]") {
  CHECK(local_label("torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl") == "cu126");
  CHECK(local_label("torch-2.9.1+ROCm6.4-cp312-cp312-manylinux_2_28_x86_64.whl") == "rocm6.4");
  CHECK(local_label("torch-2.5.1+cpu.cxx11.abi-cp312-cp312-linux_x86_64.whl") == "cpu.cxx11.abi");
  CHECK(local_label("sympy-1.13.1-py3-none-any.whl").empty());
  CHECK(local_label("nonsense").empty());
}

TEST_CASE("belongs_to_variant: the label first, then the variant directory, else every variant",
          "[index_client][layout]") {
  const auto link = [](std::string url) {
    index::Link out;
    out.url = std::move(url);
    out.filename = percent_decode(out.url.substr(out.url.rfind('/') + 1));
    return out;
  };
  const auto labelled =
      link("https://proxy/packages/ab/torch-2.6.0%2Bcu126-cp312-cp312-linux_x86_64.whl");
  CHECK(belongs_to_variant(labelled, "cu126"));
  CHECK_FALSE(belongs_to_variant(labelled, "cu124"));
  // download.pytorch.org's aarch64 torchvision has no label: its directory says cpu or cu126.
  const auto unlabelled = link(
      "https://download.pytorch.org/whl/cu126/torchvision-0.21.0-cp312-cp312-linux_aarch64.whl");
  CHECK(belongs_to_variant(unlabelled, "cu126"));
  CHECK_FALSE(belongs_to_variant(unlabelled, "cpu"));
  // Root-level files are on every variant's pages.
  const auto root_level = link(
      "https://download.pytorch.org/whl/pytorch_triton_rocm-3.2.0-cp312-cp312-linux_x86_64.whl");
  CHECK(belongs_to_variant(root_level, "rocm6.2.4"));
  CHECK(belongs_to_variant(root_level, "cu126"));
}

TEST_CASE("listed_variants reads labels and the directories of /whl/<project>/'s links",
          "[index_client][layout]") {
  const auto page = index::parse_project_html(
      R"(<a href="/whl/cu128/torch-2.10.0%2Bcu128-cp313-cp313-manylinux_2_28_x86_64.whl">a</a>
<a href="https://download-r2.pytorch.org/whl/cu130/torch-2.12.0%2Bcu130-cp313-cp313-manylinux_2_28_x86_64.whl">b</a>
<a href="/whl/rocm7.1/torch-2.10.0%2Brocm7.1-cp313-cp313-manylinux_2_28_x86_64.whl">c</a>
<a href="/whl/triton-3.5.0-cp313-cp313-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl">d</a>
<a href="/whl/cpu-cxx11-abi/torch-2.5.1%2Bcpu.cxx11.abi-cp312-cp312-linux_x86_64.whl">e</a>
<a href="/whl/cu126/torchvision-0.21.0-cp312-cp312-linux_aarch64.whl">f</a>
<a href="/packages/ab/cd/torch-2.6.0%2Bxpu-cp312-cp312-linux_x86_64.whl">g</a>)",
      "https://download.pytorch.org/whl/torch/");
  REQUIRE(page);
  CHECK(listed_variants(*page) ==
        std::set<std::string>{"cu126", "cu128", "cu130", "rocm7.1", "xpu"});
}

TEST_CASE("IndexLayout finds a variant's files in every shape of index", "[index_client][layout]") {
  const test::TempDir tree("wheelmod-layout");
  const auto root = tree.path();
  net::Fetcher fetcher;

  SECTION("download.pytorch.org's: the variant directory's page, the root page names variants") {
    write(root / "whl/torch/index.html", anchor("../cu126/" + std::string(k_cu126_x86)) +
                                             anchor("../cpu/" + std::string(k_cpu_x86)));
    write(root / "whl/cu126/torch/index.html", anchor("../" + std::string(k_cu126_x86)));
    IndexLayout layout(to_url((root / "whl").string()), fetcher);
    REQUIRE(layout.listed_variants("torch") != nullptr);
    CHECK(*layout.listed_variants("torch") == std::set<std::string>{"cpu", "cu126"});
    const auto found = layout.variant_page("cu126", "torch");
    REQUIRE(found);
    CHECK(found->source == VariantSource::variant_directory);
    CHECK(filenames(*found->page) ==
          std::set<std::string>{"torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl"});
    // cpu has no directory page here: the root page's cpu files stand for it.
    const auto cpu = layout.variant_page("cpu", "torch");
    REQUIRE(cpu);
    CHECK(cpu->source == VariantSource::project_page);
    CHECK(filenames(*cpu->page) ==
          std::set<std::string>{"torch-2.6.0+cpu-cp312-cp312-linux_x86_64.whl"});
  }
  SECTION("variant directories only: no root page is no proof of absence") {
    write(root / "tree/cu126/torch/index.html", anchor("../" + std::string(k_cu126_x86)));
    IndexLayout layout(to_url((root / "tree").string()), fetcher);
    CHECK(layout.project_page("torch") == nullptr);
    CHECK(layout.listed_variants("torch") == nullptr);
    const auto found = layout.variant_page("cu126", "torch");
    REQUIRE(found);
    CHECK(found->source == VariantSource::variant_directory);
    CHECK_FALSE(layout.variant_page("cu124", "torch"));
    const auto probes = layout.probes("torch");
    REQUIRE(probes.size() >= 3);
    CHECK(probes[0].url.ends_with("/tree/torch/"));
    CHECK(probes[0].answer == "no such file");
  }
  SECTION("a single-variant index: the project page, its variant in the labels") {
    write(root / "simple/index.html", "<a href=\"torch/\">torch/</a>\n");
    write(root / "simple/torch/index.html",
          anchor("../../packages/1f/" + std::string(k_cu126_x86)) +
              anchor("../../packages/2a/sympy-1.13.1-py3-none-any.whl"));
    IndexLayout layout(to_url((root / "simple").string()), fetcher);
    REQUIRE(layout.listed_variants("torch") != nullptr);
    CHECK(*layout.listed_variants("torch") == std::set<std::string>{"cu126"});
    const auto found = layout.variant_page("cu126", "torch");
    REQUIRE(found);
    CHECK(found->source == VariantSource::project_page);
    CHECK(filenames(*found->page).size() == 2);  // the unlabelled file is every variant's
    const auto other = layout.variant_page("cu124", "torch");
    REQUIRE(other);
    CHECK(filenames(*other->page) == std::set<std::string>{"sympy-1.13.1-py3-none-any.whl"});
    CHECK(layout.known_projects({"cu126"}) == std::vector<std::string>{"torch"});
  }
  SECTION("a project directory spelled otherwise is found through the root's listing") {
    write(root / "odd/index.html", "<a href=\"Nvidia_CuBLAS_cu12/\">Nvidia_CuBLAS_cu12</a>\n");
    write(root / "odd/Nvidia_CuBLAS_cu12/index.html",
          anchor("nvidia_cublas_cu12-12.6.4.1-py3-none-manylinux2014_x86_64.whl"));
    IndexLayout layout(to_url((root / "odd").string()), fetcher);
    const auto* page = layout.project_page("nvidia-cublas-cu12");
    REQUIRE(page != nullptr);
    CHECK(page->links.size() == 1);
  }
}
