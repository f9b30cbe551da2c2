// Tests for core metadata parsing (src/pep/metadata.cpp). The torch
// METADATA is torch 2.6.0+cu126's Requires-Dist list: the nvidia-* pins as
// quoted in astral-sh/uv#10119, the other lines as in PyPI's torch 2.6.0
// METADATA; header folding follows Python's email.parser (compat32), which
// pip reads METADATA with.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "pep/metadata.hpp"

using wheelmod::pep::CoreMetadata;
using wheelmod::pep::MarkerEnvironment;
using wheelmod::pep::Requirement;

namespace {

constexpr std::string_view k_torch_metadata =
    "Metadata-Version: 2.1\n"
    "Name: torch\n"
    "Version: 2.6.0+cu126\n"
    "Summary: Tensors and Dynamic neural networks in Python with strong GPU acceleration\n"
    "Home-page: https://pytorch.org/\n"
    "Author: PyTorch Team\n"
    "Author-email: packages@pytorch.org\n"
    "License: BSD-3-Clause\n"
    "Keywords: pytorch,machine learning\n"
    "Classifier: Development Status :: 5 - Production/Stable\n"
    "Classifier: Programming Language :: Python :: 3.12\n"
    "Requires-Python: >=3.9.0\n"
    "Description-Content-Type: text/markdown\n"
    "License-File: LICENSE\n"
    "Requires-Dist: filelock\n"
    "Requires-Dist: typing-extensions>=4.10.0\n"
    "Requires-Dist: networkx\n"
    "Requires-Dist: jinja2\n"
    "Requires-Dist: fsspec\n"
    "Requires-Dist: nvidia-cuda-nvrtc-cu12==12.6.77; platform_system == \"Linux\" and "
    "platform_machine == \"x86_64\"\n"
    "Requires-Dist: nvidia-cuda-runtime-cu12==12.6.77; platform_system == \"Linux\" and "
    "platform_machine == \"x86_64\"\n"
    "Requires-Dist: nvidia-cuda-cupti-cu12==12.6.80; platform_system == \"Linux\" and "
    "platform_machine == \"x86_64\"\n"
    "Requires-Dist: nvidia-cudnn-cu12==9.5.1.17; platform_system == \"Linux\" and "
    "platform_machine == \"x86_64\"\n"
    "Requires-Dist: nvidia-cublas-cu12==12.6.4.1; platform_system == \"Linux\" and "
    "platform_machine == \"x86_64\"\n"
    "Requires-Dist: nvidia-cufft-cu12==11.3.0.4; platform_system == \"Linux\" and "
    "platform_machine == \"x86_64\"\n"
    "Requires-Dist: nvidia-curand-cu12==10.3.7.77; platform_system == \"Linux\" and "
    "platform_machine == \"x86_64\"\n"
    "Requires-Dist: nvidia-cusolver-cu12==11.7.1.2; platform_system == \"Linux\" and "
    "platform_machine == \"x86_64\"\n"
    "Requires-Dist: nvidia-cusparse-cu12==12.5.4.2; platform_system == \"Linux\" and "
    "platform_machine == \"x86_64\"\n"
    "Requires-Dist: nvidia-cusparselt-cu12==0.6.3; platform_system == \"Linux\" and "
    "platform_machine == \"x86_64\"\n"
    "Requires-Dist: nvidia-nccl-cu12==2.21.5; platform_system == \"Linux\" and "
    "platform_machine == \"x86_64\"\n"
    "Requires-Dist: nvidia-nvtx-cu12==12.6.77; platform_system == \"Linux\" and "
    "platform_machine == \"x86_64\"\n"
    "Requires-Dist: nvidia-nvjitlink-cu12==12.6.85; platform_system == \"Linux\" and "
    "platform_machine == \"x86_64\"\n"
    "Requires-Dist: triton==3.2.0; platform_system == \"Linux\" and platform_machine == "
    "\"x86_64\"\n"
    "Requires-Dist: setuptools; python_version >= \"3.12\"\n"
    "Requires-Dist: sympy==1.13.1; python_version >= \"3.9\"\n"
    "Provides-Extra: opt-einsum\n"
    "Requires-Dist: opt-einsum>=3.3; extra == \"opt-einsum\"\n"
    "Provides-Extra: optree\n"
    "Requires-Dist: optree>=0.13.0; extra == \"optree\"\n"
    "\n"
    "![PyTorch Logo](https://github.com/pytorch/pytorch/raw/main/docs/source/_static/img/"
    "pytorch-logo-dark.png)\n"
    "Requires-Dist: not-a-header-this-is-the-body\n";

std::string with_crlf(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

/// Canonical names of the requirements that apply to `env` with `extras`.
std::vector<std::string> applying(const CoreMetadata& metadata, const MarkerEnvironment& env,
                                  const std::vector<std::string>& extras = {}) {
  std::vector<std::string> names;
  for (const Requirement& r : metadata.requires_dist)
    if (r.applies_to(env, extras)) names.push_back(r.canonical_name());
  return names;
}

bool contains(const std::vector<std::string>& names, std::string_view name) {
  return std::ranges::find(names, name) != names.end();
}

}  // namespace

TEST_CASE("CoreMetadata::parse reads a torch 2.6.0+cu126 METADATA", "[pep][metadata]") {
  for (const std::string& text : {std::string(k_torch_metadata), with_crlf(k_torch_metadata)}) {
    const auto metadata = CoreMetadata::parse(text);
    REQUIRE(metadata.has_value());
    CHECK(metadata->metadata_version == "2.1");
    CHECK(metadata->name == "torch");
    CHECK(metadata->version.str() == "2.6.0+cu126");
    REQUIRE(metadata->requires_python.has_value());
    CHECK(metadata->requires_python->str() == ">=3.9.0");
    // The body's `Requires-Dist:` line is not a header.
    REQUIRE(metadata->requires_dist.size() == 23);
    CHECK(metadata->requires_dist.front().str() == "filelock");
    CHECK(
        metadata->requires_dist[5].str() ==
        R"(nvidia-cuda-nvrtc-cu12==12.6.77; platform_system == "Linux" and platform_machine == "x86_64")");
    CHECK(metadata->requires_dist.back().str() == R"(optree>=0.13.0; extra == "optree")");
    CHECK(metadata->provides_extra == std::vector<std::string>{"opt-einsum", "optree"});
    CHECK(metadata->headers.size() == 39);
    CHECK(metadata->values("classifier") ==
          std::vector<std::string_view>{"Development Status :: 5 - Production/Stable",
                                        "Programming Language :: Python :: 3.12"});
  }
}

TEST_CASE("CoreMetadata requirements follow the target environment", "[pep][metadata]") {
  const auto metadata = CoreMetadata::parse(k_torch_metadata);
  REQUIRE(metadata.has_value());
  struct Case {
    std::string_view python;
    std::string_view machine;
    std::vector<std::string> extras;
    std::size_t count;  // requirements that apply
    bool nvidia;        // the 13 nvidia-* pins and triton
    bool setuptools;
    bool opt_einsum;
  };
  const std::vector<Case> cases = {
      {"3.12", "x86_64", {}, 21, true, true, false},
      {"3.11", "x86_64", {}, 20, true, false, false},
      {"3.11", "aarch64", {}, 6, false, false, false},
      {"3.12", "aarch64", {}, 7, false, true, false},
      {"3.12", "x86_64", {"opt-einsum"}, 22, true, true, true},
      {"3.12", "x86_64", {"optree"}, 22, true, true, false},
      {"3.11", "aarch64", {"opt_einsum", "optree"}, 8, false, false, true},
  };
  for (const auto& c : cases) {
    CAPTURE(c.python, c.machine, c.extras);
    const auto names =
        applying(*metadata, MarkerEnvironment::linux_cpython(c.python, c.machine), c.extras);
    CHECK(names.size() == c.count);
    CHECK(contains(names, "nvidia-cudnn-cu12") == c.nvidia);
    CHECK(contains(names, "nvidia-nvjitlink-cu12") == c.nvidia);
    CHECK(contains(names, "triton") == c.nvidia);
    CHECK(contains(names, "setuptools") == c.setuptools);
    CHECK(contains(names, "opt-einsum") == c.opt_einsum);
    CHECK(contains(names, "sympy"));
    CHECK(contains(names, "typing-extensions"));
  }
}

TEST_CASE("CoreMetadata::parse reads headers as email.parser does", "[pep][metadata]") {
  struct Case {
    std::string_view text;
    std::vector<std::pair<std::string, std::string>> headers;
  };
  const std::string_view head = "Metadata-Version: 2.1\nName: x\nVersion: 1\n";
  const std::vector<Case> cases = {
      // Continuation lines join with one space; field names keep their case.
      {"Summary: a\n  long\n\tsummary\nKEYWORDS:a,b\n",
       {{"Summary", "a long summary"}, {"KEYWORDS", "a,b"}}},
      // \r, \r\n and \n all end a line.
      {"Summary: a\rLicense: MIT\r\nKeywords: k\n",
       {{"Summary", "a"}, {"License", "MIT"}, {"Keywords", "k"}}},
      // Only spaces and tabs after the colon are dropped; trailing text stays.
      {"Summary:\t  spaced  \n", {{"Summary", "spaced  "}}},
      // An empty line ends the headers.
      {"Summary: a\n\nLicense: MIT\n", {{"Summary", "a"}}},
      // So does a line that is not a header (a space in the name).
      {"Summary: a\nNot A Header: b\nLicense: MIT\n", {{"Summary", "a"}}},
      // A line starting with ':' is skipped, and so is its continuation.
      {": nameless\n cont\nLicense: MIT\n", {{"License", "MIT"}}},
      // Repeated fields are all kept, in order.
      {"Classifier: A\nClassifier: B\n", {{"Classifier", "A"}, {"Classifier", "B"}}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    const auto metadata = CoreMetadata::parse(std::string(head) + std::string(c.text));
    REQUIRE(metadata.has_value());
    std::vector<std::pair<std::string, std::string>> expected = {
        {"Metadata-Version", "2.1"}, {"Name", "x"}, {"Version", "1"}};
    expected.insert(expected.end(), c.headers.begin(), c.headers.end());
    CHECK(metadata->headers == expected);
  }
}

TEST_CASE("CoreMetadata::values matches field names case-insensitively", "[pep][metadata]") {
  const auto metadata = CoreMetadata::parse(
      "metadata-version: 2.3\nNAME: Foo_Bar\nversion: 1.0\nrequires-dist: a\nRequires-Dist: "
      "b>=1\nREQUIRES-DIST: c; extra == 'x'\nprovides-extra: x\n");
  REQUIRE(metadata.has_value());
  CHECK(metadata->name == "Foo_Bar");
  CHECK(metadata->metadata_version == "2.3");
  CHECK(metadata->version.str() == "1.0");
  CHECK(metadata->requires_dist.size() == 3);
  CHECK(metadata->provides_extra == std::vector<std::string>{"x"});
  for (std::string_view field : {"Requires-Dist", "requires-dist", "REQUIRES-DIST"}) {
    CAPTURE(field);
    CHECK(metadata->values(field) == std::vector<std::string_view>{"a", "b>=1", "c; extra == 'x'"});
  }
  CHECK(metadata->values("Obsoletes-Dist").empty());
  CHECK_FALSE(metadata->requires_python.has_value());
}

TEST_CASE("CoreMetadata::parse requires Metadata-Version, Name and Version", "[pep][metadata]") {
  struct Case {
    std::string_view text;
    std::string_view missing;
  };
  const std::vector<Case> cases = {
      {"Name: x\nVersion: 1\n", "Metadata-Version"},
      {"Metadata-Version: 2.1\nVersion: 1\n", "Name"},
      {"Metadata-Version: 2.1\nName: x\n", "Version"},
      {"Metadata-Version: 2.1\nName:  \nVersion: 1\n", "Name"},
      {"Metadata-Version: 2.1\n\nName: x\nVersion: 1\n", "Name"},  // after the headers
      {"", "Metadata-Version"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    const auto metadata = CoreMetadata::parse(c.text);
    REQUIRE_FALSE(metadata.has_value());
    CHECK(metadata.error().input == c.missing);
    CHECK_THAT(metadata.error().message, Catch::Contains("required field is missing"));
  }
}

TEST_CASE("CoreMetadata::parse names the line of a bad field", "[pep][metadata]") {
  struct Case {
    std::string_view text;
    std::string_view input;
    std::string_view message_start;
  };
  const std::vector<Case> cases = {
      {"Metadata-Version: 2.1\nName: x\nVersion: 1.0.x\n", "1.0.x", "Version on line 3: "},
      {"Metadata-Version: 2.1\nName: x\nVersion: 1\nRequires-Python: >=3.9,<\n", ">=3.9,<",
       "Requires-Python on line 4: "},
      {"Metadata-Version: 2.1\nName: x\nVersion: 1\nSummary: s\n  more\nRequires-Dist: a\n"
       "Requires-Dist: b ==\n",
       "b ==", "Requires-Dist on line 7: column 3: expected end or ';'"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    const auto metadata = CoreMetadata::parse(c.text);
    REQUIRE_FALSE(metadata.has_value());
    CHECK(metadata.error().input == c.input);
    CHECK_THAT(metadata.error().message, Catch::StartsWith(std::string(c.message_start)));
  }
}
