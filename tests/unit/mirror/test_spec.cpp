#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "mirror/spec.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using wheelmod::Error;
using wheelmod::ExitCode;
using wheelmod::mirror::load_spec;
using wheelmod::mirror::MirrorSpec;
using wheelmod::mirror::parse_size;
using wheelmod::pep::GlibcVersion;
using wheelmod::test::TempDir;

namespace {

const fs::path k_examples = fs::path(WHEELMOD_SOURCE_DIR) / "index-mirrors" / "examples";

// Required keys only; each error case below changes one line of it.
constexpr std::string_view k_minimal =
    "variants: [cpu]\n"
    "packages:\n"
    "  torch: \"*\"\n"
    "python: [\"3.12\"]\n"
    "arches: [x86_64]\n";

MirrorSpec load_text(const TempDir& dir, std::string_view text) {
  dir.write("spec.yaml", text);
  return load_spec(dir.path() / "spec.yaml");
}

/// The error load_spec throws for this text (the test fails if none).
Error spec_error(const TempDir& dir, std::string_view text) {
  try {
    load_text(dir, text);
  } catch (const Error& error) {
    return error;
  }
  FAIL("load_spec accepted:\n" << text);
  return Error(ExitCode::internal, "", "");
}

std::string replaced(std::string text, std::string_view from, std::string_view to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("load_spec reads every key of a full spec", "[mirror][spec]") {
  const TempDir dir("wheelmod-spec");
  const MirrorSpec spec = load_text(dir,
                                    "index: https://mirror.example.org/whl/\n"
                                    "variants:\n"
                                    "  - cu126\n"
                                    "  - rocm6.2.4\n"
                                    "  - cuda: \">=12.4,<13\"\n"
                                    "  - rocm: \"*\"\n"
                                    "packages:\n"
                                    "  torch: \">=2.6,<2.7\"\n"
                                    "  TorchVision: \"*\"\n"
                                    "  nvidia_cudnn.CU12:\n"
                                    "  triton: ''\n"
                                    "python: [\"3.11\", \"3.13t\", '3.10']\n"
                                    "arches: [x86_64, aarch64]\n"
                                    "glibc: \"2.28\"\n"
                                    "dependencies:\n"
                                    "  follow: false\n"
                                    "  index: file:///srv/pypi/simple/\n"
                                    "size_limit: 200 GiB\n");
  CHECK(spec.file == dir.path() / "spec.yaml");
  CHECK(spec.index == "https://mirror.example.org/whl");
  CHECK(spec.variants.names == std::vector<std::string>{"cu126", "rocm6.2.4"});
  REQUIRE(spec.variants.cuda.has_value());
  CHECK(spec.variants.cuda->str() == "<13,>=12.4");
  REQUIRE(spec.variants.rocm.has_value());
  CHECK(spec.variants.rocm->empty());
  REQUIRE(spec.packages.size() == 4);
  CHECK(spec.packages[0].name == "torch");
  CHECK(spec.packages[0].specifier.str() == "<2.7,>=2.6");
  CHECK(spec.packages[1].name == "torchvision");
  CHECK(spec.packages[1].specifier.empty());
  CHECK(spec.packages[2].name == "nvidia-cudnn-cu12");
  CHECK(spec.packages[2].specifier.empty());
  CHECK(spec.packages[3].name == "triton");
  CHECK(spec.packages[3].specifier.empty());
  CHECK(spec.python == std::vector<std::string>{"3.11", "3.13t", "3.10"});
  CHECK(spec.arches == std::vector<std::string>{"x86_64", "aarch64"});
  CHECK(spec.glibc == GlibcVersion{2, 28});
  CHECK_FALSE(spec.follow_dependencies);
  CHECK(spec.dependency_index == "file:///srv/pypi/simple");
  CHECK(spec.size_limit == std::uint64_t{200} * 1024 * 1024 * 1024);
}

TEST_CASE("load_spec fills in the defaults of a minimal spec", "[mirror][spec]") {
  const TempDir dir("wheelmod-spec");
  const MirrorSpec spec = load_text(dir, k_minimal);
  CHECK(spec.index == "https://download.pytorch.org/whl");
  CHECK(spec.variants.names == std::vector<std::string>{"cpu"});
  CHECK_FALSE(spec.variants.cuda.has_value());
  CHECK_FALSE(spec.variants.rocm.has_value());
  REQUIRE(spec.packages.size() == 1);
  CHECK(spec.packages[0].name == "torch");
  CHECK(spec.packages[0].specifier.empty());
  CHECK(spec.glibc == GlibcVersion{2, 28});
  CHECK(spec.follow_dependencies);
  CHECK_FALSE(spec.dependency_index.has_value());
  CHECK_FALSE(spec.size_limit.has_value());
}

TEST_CASE("load_spec reads the short forms of dependencies and size_limit", "[mirror][spec]") {
  const TempDir dir("wheelmod-spec");
  struct {
    std::string_view extra;
    bool follow;
    std::optional<std::string> index;
    std::optional<std::uint64_t> size;
  } const cases[] = {
      {"dependencies: false\n", false, std::nullopt, std::nullopt},
      {"dependencies: true\nsize_limit: 1000\n", true, std::nullopt, 1000},
      {"dependencies: {index: /srv/simple}\n", true, "/srv/simple", std::nullopt},
      {"dependencies: {}\nsize_limit:\n", true, std::nullopt, std::nullopt},
      {"size_limit: \"512 MB\"\n", true, std::nullopt, 512'000'000},
  };
  for (const auto& c : cases) {
    CAPTURE(c.extra);
    const MirrorSpec spec = load_text(dir, std::string(k_minimal) + std::string(c.extra));
    CHECK(spec.follow_dependencies == c.follow);
    CHECK(spec.dependency_index == c.index);
    CHECK(spec.size_limit == c.size);
  }
}

TEST_CASE("load_spec normalises index roots and rejects others", "[mirror][spec]") {
  const TempDir dir("wheelmod-spec");
  struct {
    std::string_view written;
    std::string_view read;
  } const good[] = {
      {"http://127.0.0.1:8080/whl/", "http://127.0.0.1:8080/whl"},
      {"https://download.pytorch.org/whl", "https://download.pytorch.org/whl"},
      {"file:///srv/wheels//", "file:///srv/wheels"},
      {"/srv/wheels/", "/srv/wheels"},
  };
  for (const auto& c : good) {
    CAPTURE(c.written);
    const auto text = std::string(k_minimal) + "index: " + std::string(c.written) + "\n";
    CHECK(load_text(dir, text).index == c.read);
  }
  for (const std::string_view bad :
       {"srv/wheels", "ftp://host/whl", "https://", "file://srv/x", "https://user:secret@/x"}) {
    CAPTURE(bad);
    const Error error = spec_error(dir, std::string(k_minimal) + "index: " + std::string(bad));
    CHECK(error.code() == ExitCode::usage);
    CHECK_THAT(error.cause(), Catch::Contains("is not an index root"));
    CHECK_THAT(error.render(), !Catch::Contains("secret"));
  }
}

TEST_CASE("load_spec checks the shape of variant names", "[mirror][spec]") {
  const TempDir dir("wheelmod-spec");
  for (const std::string_view name :
       {"cpu", "xpu", "cu92", "cu118", "cu130", "rocm6.2", "rocm6.2.4"}) {
    CAPTURE(name);
    const auto text = replaced(std::string(k_minimal), "[cpu]", "[" + std::string(name) + "]");
    CHECK(load_text(dir, text).variants.names == std::vector<std::string>{std::string(name)});
  }
  for (const std::string_view name :
       {"cuda", "cu", "cu12.6", "CU126", "rocm6", "rocm6.", "rocm", "gpu"}) {
    CAPTURE(name);
    const auto text = replaced(std::string(k_minimal), "[cpu]", "[" + std::string(name) + "]");
    const Error error = spec_error(dir, text);
    CHECK(error.subject() == (dir.path() / "spec.yaml").string() + ":1:12");
    CHECK(error.cause() == "variants[0]: '" + std::string(name) + "' is not a variant name");
  }
}

// Each case changes one part of the minimal spec; the error must name the
// file, the line and column of the culprit, and the key path (the parser's
// own explanation may follow the cause given here).
TEST_CASE("load_spec reports mistakes at their file:line:column", "[mirror][spec]") {
  const TempDir dir("wheelmod-spec");
  const std::string file = (dir.path() / "spec.yaml").string();
  struct {
    std::string_view name;
    std::string text;
    std::string_view position;
    std::string_view cause;
    std::string_view hint;
  } const cases[] = {
      {"unknown key", std::string(k_minimal) + "mirror_dir: /srv\n", ":6:1",
       "mirror_dir: unknown key 'mirror_dir'", "known keys here: index, variants, packages"},
      {"misspelt key", replaced(std::string(k_minimal), "arches", "arch"), ":5:1",
       "arch: unknown key 'arch'", "did you mean 'arches'?"},
      {"bad specifier", replaced(std::string(k_minimal), "\"*\"", "\">=2.6,<<2.7\""), ":3:10",
       "packages.torch: invalid version specifier '>=2.6,<<2.7'", "PEP 440"},
      {"bare version", replaced(std::string(k_minimal), "\"*\"", "2.6"), ":3:10",
       "packages.torch: invalid version specifier '2.6'", "\"*\" for any version"},
      {"unquoted 3.10", replaced(std::string(k_minimal), "[\"3.12\"]", "[3.10]"), ":4:10",
       "python[0]: expected a quoted version string, got 3.10", "3.10 becomes 3.1"},
      {"python 2", replaced(std::string(k_minimal), "[\"3.12\"]", "[\"2.7\"]"), ":4:10",
       "python[0]: invalid Python version '2.7'", "\"3.13t\""},
      {"unknown arch", replaced(std::string(k_minimal), "[x86_64]", "[x86_64, amd64]"), ":5:18",
       "arches[1]: unknown architecture 'amd64'", "x86_64, aarch64, ppc64le, s390x"},
      {"empty packages",
       replaced(std::string(k_minimal), "packages:\n  torch: \"*\"\n", "packages: {}\n"), ":2:11",
       "packages: expected at least one package", "torch"},
      {"packages missing", replaced(std::string(k_minimal), "packages:\n  torch: \"*\"\n", ""),
       ":1:1", "missing required field 'packages'", ""},
      {"empty arches", replaced(std::string(k_minimal), "[x86_64]", "[]"), ":5:9",
       "arches: expected at least one architecture", ""},
      {"bad size", std::string(k_minimal) + "size_limit: 200 GB and more\n", ":6:13",
       "size_limit: expected a positive size, got '200 GB and more'", "GiB"},
      {"zero size", std::string(k_minimal) + "size_limit: 0 GiB\n", ":6:13",
       "size_limit: expected a positive size, got '0 GiB'", ""},
      {"unquoted glibc", std::string(k_minimal) + "glibc: 2.28\n", ":6:8",
       "glibc: expected a quoted version string, got 2.28", "in quotes"},
      {"bad glibc", std::string(k_minimal) + "glibc: \"two\"\n", ":6:8",
       "glibc: invalid glibc version 'two'", "2.28"},
      {"dependencies yes", std::string(k_minimal) + "dependencies: yes\n", ":6:15",
       "dependencies: expected true or false, got 'yes'", ""},
      {"dependencies key", std::string(k_minimal) + "dependencies: {follw: true}\n", ":6:16",
       "dependencies.follw: unknown key 'follw'", "did you mean 'follow'?"},
      {"two cuda ranges",
       replaced(std::string(k_minimal), "[cpu]", "[{cuda: \">=12\"}, {cuda: \"<13\"}]"), ":1:29",
       "variants[1].cuda: a cuda range is given twice", ">=12.4,<13"},
      {"range key", replaced(std::string(k_minimal), "[cpu]", "[{cu: \">=12\"}]"), ":1:13",
       "variants[0].cu: unknown key 'cu'", "cuda, rocm"},
      {"bad range", replaced(std::string(k_minimal), "[cpu]", "[{rocm: \"6.2+\"}]"), ":1:19",
       "variants[0].rocm: invalid version specifier '6.2+'", ""},
      {"variant twice", replaced(std::string(k_minimal), "[cpu]", "[cpu, cu126, cpu]"), ":1:24",
       "variants[2]: variant 'cpu' is listed twice", ""},
      {"empty variants", replaced(std::string(k_minimal), "[cpu]", "[]"), ":1:11",
       "variants: expected at least one variant", "{cuda: \">=12.4\"}"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name, c.text);
    const Error error = spec_error(dir, c.text);
    CHECK(error.code() == ExitCode::usage);
    CHECK(error.subject() == file + std::string(c.position));
    CHECK_THAT(error.cause(), Catch::StartsWith(std::string(c.cause)));
    CHECK_THAT(error.hint(), Catch::Contains(std::string(c.hint)));
  }
}

TEST_CASE("load_spec rejects two names that PEP 503 normalises alike", "[mirror][spec]") {
  const TempDir dir("wheelmod-spec");
  const Error error = spec_error(dir,
                                 "variants: [cpu]\n"
                                 "packages:\n"
                                 "  Torch_Vision: \"*\"\n"
                                 "  torch: \"*\"\n"
                                 "  torch.vision: \">=0.21\"\n"
                                 "python: [\"3.12\"]\n"
                                 "arches: [x86_64]\n");
  CHECK(error.subject() == (dir.path() / "spec.yaml").string() + ":5:3");
  CHECK(error.cause() ==
        "packages.'torch.vision': 'torch.vision' and 'Torch_Vision' are the same project "
        "(torch-vision)");
}

TEST_CASE("parse_size reads decimal and binary units", "[mirror][spec]") {
  struct {
    std::string_view text;
    std::uint64_t bytes;
  } const good[] = {
      {"0", 0},
      {"1", 1},
      {"214748364800", 214'748'364'800},
      {"200 GiB", 214'748'364'800},
      {"200GiB", 214'748'364'800},
      {"  3 TiB ", 3'298'534'883'328},
      {"512 MB", 512'000'000},
      {"1 kB", 1000},
      {"1 KB", 1000},
      {"1 KiB", 1024},
      {"5 MiB", 5'242'880},
      {"2 GB", 2'000'000'000},
      {"7 TB", 7'000'000'000'000},
      {"10 B", 10},
      {"16777215 TiB", 16'777'215ULL << 40},
      {"18446744073709551615", 18'446'744'073'709'551'615ULL},
  };
  for (const auto& c : good) {
    CAPTURE(c.text);
    CHECK(parse_size(c.text) == c.bytes);
  }
  for (const std::string_view bad :
       {"", " ", "GiB", "1.5 GiB", "-1", "+1", "200 gib", "200 G", "200 GiBs", "2 00 MB",
        "16777216 TiB", "18446744073709551616", "0x10"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_size(bad).has_value());
  }
}

TEST_CASE("the example specs under index-mirrors/examples are valid", "[mirror][spec]") {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(k_examples)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  std::ranges::sort(files);
  REQUIRE(files.size() >= 3);
  for (const auto& file : files) {
    CAPTURE(file);
    const MirrorSpec spec = load_spec(file);
    CHECK_FALSE(spec.packages.empty());
  }

  const MirrorSpec cuda = load_spec(k_examples / "pytorch-2.6-cuda.yaml");
  CHECK(cuda.variants.names == std::vector<std::string>{"cu124", "cu126"});
  REQUIRE(cuda.packages.size() == 3);
  CHECK(cuda.packages[0].name == "torch");
  CHECK(cuda.packages[0].specifier.str() == "<2.7,>=2.6");
  CHECK(cuda.python == std::vector<std::string>{"3.11", "3.12"});
  CHECK(cuda.arches == std::vector<std::string>{"x86_64", "aarch64"});
  CHECK(cuda.glibc == GlibcVersion{2, 28});
  CHECK(cuda.follow_dependencies);
  CHECK(cuda.size_limit == std::uint64_t{200} << 30);

  const MirrorSpec rocm = load_spec(k_examples / "rocm.yaml");
  CHECK(rocm.variants.names.empty());
  REQUIRE(rocm.variants.rocm.has_value());
  CHECK(rocm.variants.rocm->str() == ">=6.2");
  CHECK_FALSE(rocm.follow_dependencies);

  const MirrorSpec cpu = load_spec(k_examples / "cpu-only.yaml");
  CHECK(cpu.dependency_index == "https://pypi.org/simple");
  CHECK(cpu.glibc == GlibcVersion{2, 28});
}
