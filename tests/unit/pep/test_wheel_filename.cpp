// Wheel file names: PEP 427 "File name convention". Real names as observed
// on download.pytorch.org, PyPI and pypi.nvidia.com; expected values checked
// with python3-packaging 23.0's packaging.utils.parse_wheel_filename.
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "pep/wheel_filename.hpp"

using wheelmod::pep::BuildTag;
using wheelmod::pep::Tag;
using wheelmod::pep::WheelFilename;

namespace {

std::vector<std::string> tag_strings(const std::vector<Tag>& tags) {
  std::vector<std::string> out;
  for (const auto& tag : tags) out.push_back(tag.str());
  return out;
}

// A name that parses, with what it must give (no build tag).
struct ParsedCase {
  std::string_view input;
  std::string_view distribution;
  std::string_view name;
  std::string_view version;
  std::vector<std::string> tags;
};

void check_parsed(const ParsedCase& c) {
  CAPTURE(c.input);
  const auto parsed = WheelFilename::parse(c.input);
  REQUIRE(parsed.has_value());
  CHECK(parsed->distribution == c.distribution);
  CHECK(parsed->name == c.name);
  CHECK(parsed->version.str() == c.version);
  CHECK_FALSE(parsed->build.has_value());
  CHECK(tag_strings(parsed->tags) == c.tags);
}

}  // namespace

TEST_CASE("WheelFilename::parse splits real PyTorch and nvidia wheel names", "[pep][wheel]") {
  const ParsedCase cases[] = {
      {"torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl",
       "torch",
       "torch",
       "2.6.0+cu126",
       {"cp312-cp312-manylinux_2_28_x86_64"}},
      {"torch-2.7.0+cu128-cp313-cp313t-manylinux_2_28_x86_64.whl",
       "torch",
       "torch",
       "2.7.0+cu128",
       {"cp313-cp313t-manylinux_2_28_x86_64"}},
      {"torch-2.6.0+cu126-cp312-cp312-linux_aarch64.whl",
       "torch",
       "torch",
       "2.6.0+cu126",
       {"cp312-cp312-linux_aarch64"}},
      {"torch-2.6.0-cp312-none-macosx_11_0_arm64.whl",
       "torch",
       "torch",
       "2.6.0",
       {"cp312-none-macosx_11_0_arm64"}},
      {"torch-2.8.0+cu128-cp312-cp312-win_amd64.whl",
       "torch",
       "torch",
       "2.8.0+cu128",
       {"cp312-cp312-win_amd64"}},
      {"torch-2.7.0.dev20250123+cpu-cp39-cp39-manylinux_2_28_x86_64.whl",
       "torch",
       "torch",
       "2.7.0.dev20250123+cpu",
       {"cp39-cp39-manylinux_2_28_x86_64"}},
      {"torchvision-0.21.0+rocm6.2.4-cp312-cp312-linux_x86_64.whl",
       "torchvision",
       "torchvision",
       "0.21.0+rocm6.2.4",
       {"cp312-cp312-linux_x86_64"}},
      {"pytorch_triton_rocm-3.2.0-cp312-cp312-linux_x86_64.whl",
       "pytorch_triton_rocm",
       "pytorch-triton-rocm",
       "3.2.0",
       {"cp312-cp312-linux_x86_64"}},
      {"nvidia_cublas_cu12-12.6.4.1-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
       "nvidia_cublas_cu12",
       "nvidia-cublas-cu12",
       "12.6.4.1",
       {"py3-none-manylinux2014_x86_64", "py3-none-manylinux_2_17_x86_64"}},
      {"nvidia_nvjitlink_cu12-12.6.85-py3-none-manylinux2010_x86_64.manylinux_2_12_x86_64.whl",
       "nvidia_nvjitlink_cu12",
       "nvidia-nvjitlink-cu12",
       "12.6.85",
       {"py3-none-manylinux2010_x86_64", "py3-none-manylinux_2_12_x86_64"}},
      {"nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux2014_x86_64.whl",
       "nvidia_cudnn_cu12",
       "nvidia-cudnn-cu12",
       "9.1.0.70",
       {"py3-none-manylinux2014_x86_64"}},
      {"typing_extensions-4.12.2-py3-none-any.whl",
       "typing_extensions",
       "typing-extensions",
       "4.12.2",
       {"py3-none-any"}},
  };
  for (const auto& c : cases) check_parsed(c);
}

TEST_CASE("WheelFilename::parse decodes a percent-encoded '+' as download.pytorch.org writes it",
          "[pep][wheel]") {
  struct {
    std::string_view input;
    std::string_view version;
    std::string_view tag;
  } const cases[] = {
      {"torch-2.6.0%2Bcu126-cp312-cp312-manylinux_2_28_x86_64.whl", "2.6.0+cu126",
       "cp312-cp312-manylinux_2_28_x86_64"},
      {"torch-2.7.1%2bcpu-cp312-cp312-manylinux_2_28_aarch64.whl", "2.7.1+cpu",
       "cp312-cp312-manylinux_2_28_aarch64"},
      {"torch-2.11.0%2Bcu128-cp313-cp313t-manylinux_2_28_x86_64.whl", "2.11.0+cu128",
       "cp313-cp313t-manylinux_2_28_x86_64"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.input);
    const auto parsed = WheelFilename::parse(c.input);
    REQUIRE(parsed.has_value());
    CHECK(parsed->name == "torch");
    CHECK(parsed->version.str() == c.version);
    CHECK(parsed->version.local_str() == c.version.substr(c.version.find('+') + 1));
    CHECK(tag_strings(parsed->tags) == std::vector<std::string>{std::string(c.tag)});
  }
}

// PEP 427 build tag; packaging matches `(\d+)(.*)` and compares (int, str).
TEST_CASE("WheelFilename::parse reads the optional build tag", "[pep][wheel]") {
  struct {
    std::string_view input;
    BuildTag build;
  } const cases[] = {
      {"foo-1.0-1-py3-none-any.whl", {1, ""}},
      {"foo-1.0-2abc-py3-none-any.whl", {2, "abc"}},
      {"foo-1.0-007x-py3-none-any.whl", {7, "x"}},
      {"foo-1.0-20240101_cuda-cp312-cp312-linux_x86_64.whl", {20240101, "_cuda"}},
      {"foo-1.0-1.2-py3-none-any.whl", {1, ".2"}},
      {"foo-1.0-1a\nb-py3-none-any.whl", {1, "a"}},  // `.` stops at a newline
      {"foo-1.0-18446744073709551615-py3-none-any.whl", {18446744073709551615ULL, ""}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.input);
    const auto parsed = WheelFilename::parse(c.input);
    REQUIRE(parsed.has_value());
    REQUIRE(parsed->build.has_value());
    CHECK(parsed->build->number == c.build.number);
    CHECK(parsed->build->suffix == c.build.suffix);
    CHECK(parsed->version.str() == "1.0");
    CHECK(parsed->name == "foo");
  }
  CHECK(BuildTag{1, "b"} < BuildTag{2, "a"});
  CHECK(BuildTag{1, ""} < BuildTag{1, "a"});
}

// The corners where packaging 23.0 is laxer than PEP 427; we follow it.
TEST_CASE("WheelFilename::parse normalises and accepts what packaging accepts", "[pep][wheel]") {
  const ParsedCase cases[] = {
      {"Foo.Bar-1.0-py3-none-any.whl", "Foo.Bar", "foo-bar", "1.0", {"py3-none-any"}},
      {"zope.interface-6.0-cp312-cp312-manylinux_2_17_x86_64.whl",
       "zope.interface",
       "zope-interface",
       "6.0",
       {"cp312-cp312-manylinux_2_17_x86_64"}},
      {"foo-1.0.0RC1-py3-none-any.whl", "foo", "foo", "1.0.0rc1", {"py3-none-any"}},
      {"foo-v1.0-py3-none-any.whl", "foo", "foo", "1.0", {"py3-none-any"}},
      {"foo-1.0-PY3.py2-NONE-ANY.whl", "foo", "foo", "1.0", {"py3-none-any", "py2-none-any"}},
      {"foo-1.0-py2.py3-none-any.whl", "foo", "foo", "1.0", {"py2-none-any", "py3-none-any"}},
      {"foo-1.0-py3--any.whl", "foo", "foo", "1.0", {"py3--any"}},
      {"-1.0-py3-none-any.whl", "", "", "1.0", {"py3-none-any"}},  // `*` allows no name
      {"foo\n-1.0-py3-none-any.whl", "foo\n", "foo\n", "1.0", {"py3-none-any"}},  // `$`
      {"torch-2.6.0%2Bcu126-cp312-cp312-manylinux_2_28_x86_64%2B.whl",
       "torch",
       "torch",
       "2.6.0+cu126",
       {"cp312-cp312-manylinux_2_28_x86_64+"}},
  };
  for (const auto& c : cases) check_parsed(c);
}

TEST_CASE("WheelFilename::parse rejects invalid names and says why", "[pep][wheel]") {
  struct {
    std::string_view input;
    std::string_view message;
  } const cases[] = {
      {"torch-2.6.0-cp312-cp312-manylinux_2_28_x86_64.zip", "must end in '.whl'"},
      {"torch-2.6.0-cp312-cp312-manylinux_2_28_x86_64.WHL", "must end in '.whl'"},
      {"torch-2.6.0-cp312-cp312-manylinux_2_28_x86_64.whl.metadata", "must end in '.whl'"},
      {"", "must end in '.whl'"},
      {".whl", "got 1"},
      {"torch-2.6.0-cp312-manylinux_2_28_x86_64.whl", "expected 5 to 7 '-'-separated parts"},
      {"torch-2.6.0-1-2-cp312-cp312-linux_x86_64-x-y.whl", "got 9"},
      {"torch-2.6.0-1-2-cp312-cp312-linux_x86_64.whl", "Python tag '2' must start with a letter"},
      {"torch-2.6.0-cp312-cp312-linux_x86_64-CU128.whl", "variant label 'CU128' must be"},
      {"torch-2.6.0-cp312-cp312-linux_x86_64-abcdefghijklmnopq.whl", "1 to 16"},
      {"nvidia__cublas-1.0-py3-none-any.whl", "invalid project name 'nvidia__cublas'"},
      {"foo+bar-1.0-py3-none-any.whl", "invalid project name 'foo+bar'"},
      {"foo%2Fbar-1.0-py3-none-any.whl", "invalid project name 'foo%2Fbar'"},
      {"foo\n\n-1.0-py3-none-any.whl", "invalid project name"},
      {"my-pkg-1.0-py3-none-any.whl", "invalid version 'pkg'"},
      {"foo-1.0.x-py3-none-any.whl", "invalid version '1.0.x'"},
      {"foo--py3-none-any.whl", "invalid version ''"},
      {"foo-1.0--py3-none-any.whl", "Python tag '' must start with a letter"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.input);
    const auto parsed = WheelFilename::parse(c.input);
    REQUIRE_FALSE(parsed.has_value());
    CHECK(parsed.error().input == c.input);
    CHECK_THAT(parsed.error().message, Catch::Contains(std::string(c.message)));
  }
}

// Documented differences from packaging 23.0 (which accepts these): build
// numbers beyond 64 bits, and non-ASCII `\w` characters in the name.
TEST_CASE("WheelFilename::parse rejects huge build numbers and non-ASCII names", "[pep][wheel]") {
  struct {
    std::string_view input;
    std::string_view message;
  } const cases[] = {
      {"foo-1.0-18446744073709551616-py3-none-any.whl", "is too large"},
      {"caf\xc3\xa9-1.0-py3-none-any.whl", "invalid project name"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.input);
    const auto parsed = WheelFilename::parse(c.input);
    REQUIRE_FALSE(parsed.has_value());
    CHECK_THAT(parsed.error().message, Catch::Contains(std::string(c.message)));
  }
}

TEST_CASE("WheelFilename error descriptions name the file", "[pep][wheel]") {
  const auto parsed = WheelFilename::parse("torch-2.6.0%2Bcu126-cp312.whl");
  REQUIRE_FALSE(parsed.has_value());
  CHECK(parsed.error().describe("wheel file name") ==
        "invalid wheel file name 'torch-2.6.0%2Bcu126-cp312.whl': expected 5 to 7 "
        "'-'-separated parts (name-version[-build]-python-abi-platform[-variant label]), got 3");
}

// PEP 825 (Draft) "Variant label": {distribution}-{version}(-{build tag})?-{python tag}-{abi tag}
// -{platform tag}(-{variant label})?.whl, label ^[0-9a-z_.]{1,16}$. packaging 23.0 refuses these
// names (it reads the Python tag as a build tag); wheelmod recognises them so that a variant wheel
// listed beside ordinary ones is never taken for one of them.
TEST_CASE("WheelFilename::parse reads a PEP 825 variant label", "[pep][wheel]") {
  const auto plain = WheelFilename::parse("torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64.whl");
  REQUIRE(plain.has_value());
  CHECK_FALSE(plain->variant_label.has_value());

  const auto labelled =
      WheelFilename::parse("torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-cu128.whl");
  REQUIRE(labelled.has_value());
  CHECK(labelled->variant_label == "cu128");
  CHECK_FALSE(labelled->build.has_value());
  REQUIRE(labelled->tags.size() == 1);
  CHECK(labelled->tags.front().str() == "cp313-cp313-manylinux_2_28_x86_64");

  const auto null_variant =
      WheelFilename::parse("numpy-2.3.2-cp313-cp313t-musllinux_1_2_x86_64-null.whl");
  REQUIRE(null_variant.has_value());
  CHECK(null_variant->variant_label == "null");

  const auto both = WheelFilename::parse("foo-1.0-2x-py3-none-any-x86_64_v3.whl");
  REQUIRE(both.has_value());
  REQUIRE(both->build.has_value());
  CHECK(both->build->number == 2);
  CHECK(both->variant_label == "x86_64_v3");

  // A build tag still wins where the third part starts with a digit.
  const auto build = WheelFilename::parse("foo-1.0-1-py3-none-any.whl");
  REQUIRE(build.has_value());
  CHECK(build->build.has_value());
  CHECK_FALSE(build->variant_label.has_value());
}
