// Compatibility tags. Expected lists and counts come from
// tests/differential/reference_tags.py, i.e. python3-packaging 23.0's
// cpython_tags() + compatible_tags() on the emulated host (sys_tags()).
#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "pep/tags.hpp"

using wheelmod::pep::GlibcVersion;
using wheelmod::pep::parse_tag_set;
using wheelmod::pep::supported_platforms;
using wheelmod::pep::supported_tags;
using wheelmod::pep::Tag;
using wheelmod::pep::TagPriority;
using wheelmod::pep::TagTarget;

namespace {

TagTarget target(std::string_view python, std::string_view arch, std::string_view glibc) {
  const auto version = GlibcVersion::parse(glibc);
  REQUIRE(version.has_value());
  auto result = TagTarget::with_python(python, arch, *version);
  REQUIRE(result.has_value());
  return *result;
}

std::vector<std::string> tag_strings(const std::vector<Tag>& tags) {
  std::vector<std::string> out;
  for (const auto& tag : tags) out.push_back(tag.str());
  return out;
}

std::ptrdiff_t position(const std::vector<std::string>& list, std::string_view item) {
  const auto it = std::ranges::find(list, item);
  return it == list.end() ? -1 : it - list.begin();
}

}  // namespace

TEST_CASE("Tag::str joins interpreter, abi and platform with '-'", "[pep][tags]") {
  CHECK(Tag{"cp312", "cp312", "manylinux_2_28_x86_64"}.str() ==
        "cp312-cp312-manylinux_2_28_x86_64");
  CHECK(Tag{"py3", "none", "any"}.str() == "py3-none-any");
}

// PEP 425 "Compressed Tag Sets"; packaging.tags.parse_tag lower-cases.
TEST_CASE("parse_tag_set expands compressed sets in written order", "[pep][tags]") {
  struct {
    std::string_view input;
    std::vector<std::string> expected;
  } const cases[] = {
      {"py3-none-any", {"py3-none-any"}},
      {"cp312-cp312-manylinux2014_x86_64.manylinux_2_17_x86_64",
       {"cp312-cp312-manylinux2014_x86_64", "cp312-cp312-manylinux_2_17_x86_64"}},
      {"py2.py3-none-any", {"py2-none-any", "py3-none-any"}},
      {"a.b-c.d-e.f", {"a-c-e", "a-c-f", "a-d-e", "a-d-f", "b-c-e", "b-c-f", "b-d-e", "b-d-f"}},
      {"CP312-CP312-Linux_X86_64", {"cp312-cp312-linux_x86_64"}},
      {"py3.PY3-none-any", {"py3-none-any"}},  // a set: duplicates collapse
      {"py3--any", {"py3--any"}},              // packaging 23.0 keeps empty fields
      {"py3.-none-any", {"py3-none-any", "-none-any"}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.input);
    const auto parsed = parse_tag_set(c.input);
    REQUIRE(parsed.has_value());
    CHECK(tag_strings(*parsed) == c.expected);
  }
}

TEST_CASE("parse_tag_set rejects anything but three '-'-separated fields", "[pep][tags]") {
  for (const std::string_view input : {"", "py3", "py3-none", "py3-none-any-extra", "a-b-c-d-e"}) {
    CAPTURE(input);
    const auto parsed = parse_tag_set(input);
    REQUIRE_FALSE(parsed.has_value());
    CHECK(parsed.error().input == input);
    CHECK_THAT(parsed.error().message, Catch::Contains("3 '-'-separated fields"));
  }
}

// packaging._manylinux._parse_glibc_version: a `major.minor` prefix.
TEST_CASE("GlibcVersion::parse reads major.minor and ignores a suffix", "[pep][tags]") {
  struct {
    std::string_view input;
    unsigned major;
    unsigned minor;
  } const cases[] = {
      {"2.28", 2, 28},   {"2.17", 2, 17},  {"2.20-2014.11", 2, 20},  // Linaro
      {"2.35\n", 2, 35}, {" 2.31", 2, 31}, {"2.5", 2, 5},           {"3.0", 3, 0}, {"2.028", 2, 28},
  };
  for (const auto& c : cases) {
    CAPTURE(c.input);
    const auto parsed = GlibcVersion::parse(c.input);
    REQUIRE(parsed.has_value());
    CHECK(parsed->major == c.major);
    CHECK(parsed->minor == c.minor);
  }
}

TEST_CASE("GlibcVersion::parse rejects text without major.minor", "[pep][tags]") {
  for (const std::string_view input :
       {"", "2", "2.", "x.28", ".28", "2.x", "glibc 2.28", "10.1", "2.99999999999999999999"}) {
    CAPTURE(input);
    const auto parsed = GlibcVersion::parse(input);
    REQUIRE_FALSE(parsed.has_value());
    CHECK_THAT(parsed.error().message, Catch::Contains("'2.28'"));
  }
}

TEST_CASE("TagTarget::with_python reads X.Y and the free-threaded 't'", "[pep][tags]") {
  struct {
    std::string_view input;
    unsigned minor;
    bool free_threaded;
  } const cases[] = {
      {"3.12", 12, false}, {"3.13t", 13, true}, {"3.14t", 14, true},
      {"3.7", 7, false},   {"3.9", 9, false},   {"3.100", 100, false},
  };
  for (const auto& c : cases) {
    CAPTURE(c.input);
    const auto parsed = TagTarget::with_python(c.input, "aarch64", GlibcVersion{2, 28});
    REQUIRE(parsed.has_value());
    CHECK(parsed->python_major == 3);
    CHECK(parsed->python_minor == c.minor);
    CHECK(parsed->free_threaded == c.free_threaded);
    CHECK(parsed->arch == "aarch64");
    CHECK(parsed->glibc == GlibcVersion{2, 28});
  }
}

TEST_CASE("TagTarget::with_python rejects malformed and unsupported versions", "[pep][tags]") {
  struct {
    std::string_view input;
    std::string_view message;
  } const cases[] = {
      {"", "must look like '3.12'"},
      {"3", "must look like '3.12'"},
      {"3.", "must look like '3.12'"},
      {"3.12.1", "must look like '3.12'"},
      {"py3.12", "must look like '3.12'"},
      {" 3.12", "must look like '3.12'"},
      {"3.13T", "must look like '3.12'"},
      {"3.13tt", "must look like '3.12'"},
      {"cp312", "must look like '3.12'"},
      {"2.7", "3.7 and newer"},
      {"3.6", "3.7 and newer"},
      {"4.0", "3.7 and newer"},
      {"3.12t", "from CPython 3.13 on"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.input);
    const auto parsed = TagTarget::with_python(c.input, "x86_64", GlibcVersion{});
    REQUIRE_FALSE(parsed.has_value());
    CHECK(parsed.error().input == c.input);
    CHECK_THAT(parsed.error().message, Catch::Contains(std::string(c.message)));
  }
}

TEST_CASE("TagTarget::with_python rejects an arch that is no uname -m name", "[pep][tags]") {
  for (const std::string_view arch : {"", "X86_64", "x86-64", "x86_64 ", "linux/amd64"}) {
    CAPTURE(arch);
    const auto parsed = TagTarget::with_python("3.12", arch, GlibcVersion{});
    REQUIRE_FALSE(parsed.has_value());
    CHECK(parsed.error().input == arch);
    CHECK_THAT(parsed.error().message, Catch::Contains("uname -m"));
  }
}

// packaging._manylinux.platform_tags: down to 2.5 on x86 (PEP 513), 2.17
// elsewhere (PEP 599); legacy names after their PEP 600 twin.
TEST_CASE("supported_platforms lists manylinux from the glibc down, then linux_<arch>",
          "[pep][tags]") {
  struct {
    std::string_view arch;
    std::string_view glibc;
    std::vector<std::string> expected;
  } const cases[] = {
      {"aarch64",
       "2.28",
       {"manylinux_2_28_aarch64", "manylinux_2_27_aarch64", "manylinux_2_26_aarch64",
        "manylinux_2_25_aarch64", "manylinux_2_24_aarch64", "manylinux_2_23_aarch64",
        "manylinux_2_22_aarch64", "manylinux_2_21_aarch64", "manylinux_2_20_aarch64",
        "manylinux_2_19_aarch64", "manylinux_2_18_aarch64", "manylinux_2_17_aarch64",
        "manylinux2014_aarch64", "linux_aarch64"}},
      {"x86_64",
       "2.13",
       {"manylinux_2_13_x86_64", "manylinux_2_12_x86_64", "manylinux2010_x86_64",
        "manylinux_2_11_x86_64", "manylinux_2_10_x86_64", "manylinux_2_9_x86_64",
        "manylinux_2_8_x86_64", "manylinux_2_7_x86_64", "manylinux_2_6_x86_64",
        "manylinux_2_5_x86_64", "manylinux1_x86_64", "linux_x86_64"}},
      {"ppc64le", "2.17", {"manylinux_2_17_ppc64le", "manylinux2014_ppc64le", "linux_ppc64le"}},
      {"s390x", "2.16", {"linux_s390x"}},      // older than any manylinux for s390x
      {"x86_64", "2.4", {"linux_x86_64"}},     // older than manylinux1
      {"riscv64", "2.35", {"linux_riscv64"}},  // no manylinux ABI in packaging 23.0
      {"i686",
       "2.6",
       {"manylinux_2_6_i686", "manylinux_2_5_i686", "manylinux1_i686", "linux_i686"}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.arch, c.glibc);
    CHECK(supported_platforms(target("3.12", c.arch, c.glibc)) == c.expected);
  }
}

TEST_CASE("supported_platforms walks older glibc majors from minor 50", "[pep][tags]") {
  // _LAST_GLIBC_MINOR defaults to 50 for a hypothetical glibc 3.x.
  const auto platforms = supported_platforms(target("3.12", "x86_64", "3.1"));
  REQUIRE(platforms.size() >= 4);
  CHECK(platforms[0] == "manylinux_3_1_x86_64");
  CHECK(platforms[1] == "manylinux_3_0_x86_64");
  CHECK(platforms[2] == "manylinux_2_50_x86_64");
  CHECK(platforms.size() == 2 + 46 + 3 + 1);  // 3.1..3.0, 2.50..2.5, legacy, linux
  CHECK(platforms.back() == "linux_x86_64");
}

TEST_CASE("supported_tags for CPython 3.12 on x86_64 glibc 2.28 matches sys_tags()",
          "[pep][tags]") {
  const auto tags = tag_strings(supported_tags(target("3.12", "x86_64", "2.28")));
  // 28 platforms x (cp312 + abi3 + none + 10 older abi3 + 14 py*) + 15 any.
  REQUIRE(tags.size() == 771);
  CHECK(tags[0] == "cp312-cp312-manylinux_2_28_x86_64");
  CHECK(tags[1] == "cp312-cp312-manylinux_2_27_x86_64");
  CHECK(tags[11] == "cp312-cp312-manylinux_2_17_x86_64");
  CHECK(tags[12] == "cp312-cp312-manylinux2014_x86_64");
  CHECK(tags[18] == "cp312-cp312-manylinux2010_x86_64");
  CHECK(tags[25] == "cp312-cp312-manylinux_2_5_x86_64");
  CHECK(tags[26] == "cp312-cp312-manylinux1_x86_64");
  CHECK(tags[27] == "cp312-cp312-linux_x86_64");
  CHECK(tags[28] == "cp312-abi3-manylinux_2_28_x86_64");
  CHECK(tags[56] == "cp312-none-manylinux_2_28_x86_64");
  CHECK(tags[84] == "cp311-abi3-manylinux_2_28_x86_64");
  CHECK(tags[363] == "cp32-abi3-linux_x86_64");
  CHECK(tags[364] == "py312-none-manylinux_2_28_x86_64");
  CHECK(tags[392] == "py3-none-manylinux_2_28_x86_64");
  CHECK(tags[755] == "py30-none-linux_x86_64");
  const std::vector<std::string> any_tail(tags.end() - 15, tags.end());
  CHECK(any_tail == std::vector<std::string>{"cp312-none-any", "py312-none-any", "py3-none-any",
                                             "py311-none-any", "py310-none-any", "py39-none-any",
                                             "py38-none-any", "py37-none-any", "py36-none-any",
                                             "py35-none-any", "py34-none-any", "py33-none-any",
                                             "py32-none-any", "py31-none-any", "py30-none-any"});
  CHECK(position(tags, "cp312-abi3-linux_x86_64") < position(tags, "cp311-abi3-manylinux1_x86_64"));
}

TEST_CASE("supported_tags sizes and landmarks per target match sys_tags()", "[pep][tags]") {
  struct {
    std::string_view python;
    std::string_view arch;
    std::string_view glibc;
    std::size_t count;
    std::string_view first;
    std::string_view present;
    std::string_view absent;
  } const cases[] = {
      {"3.12", "aarch64", "2.28", 393, "cp312-cp312-manylinux_2_28_aarch64",
       "cp312-cp312-manylinux2014_aarch64", "cp312-cp312-manylinux2010_aarch64"},
      {"3.12", "aarch64", "2.28", 393, "cp312-cp312-manylinux_2_28_aarch64",
       "py3-none-linux_aarch64", "cp312-cp312-manylinux1_aarch64"},
      {"3.9", "x86_64", "2.17", 369, "cp39-cp39-manylinux_2_17_x86_64",
       "cp39-cp39-manylinux1_x86_64", "cp39-cp39-manylinux_2_18_x86_64"},
      {"3.11", "aarch64", "2.35", 539, "cp311-cp311-manylinux_2_35_aarch64",
       "cp310-abi3-manylinux_2_17_aarch64", "cp311-cp311-manylinux_2_16_aarch64"},
      {"3.13", "ppc64le", "2.17", 103, "cp313-cp313-manylinux_2_17_ppc64le", "cp313-none-any",
       "cp313-cp313t-manylinux_2_17_ppc64le"},
      {"3.7", "x86_64", "2.17", 299, "cp37-cp37m-manylinux_2_17_x86_64", "cp36-abi3-linux_x86_64",
       "cp37-cp37-linux_x86_64"},
      {"3.12", "x86_64", "2.4", 42, "cp312-cp312-linux_x86_64", "py3-none-linux_x86_64",
       "cp312-cp312-manylinux1_x86_64"},
      {"3.12", "i686", "2.5", 96, "cp312-cp312-manylinux_2_5_i686", "cp312-cp312-manylinux1_i686",
       "cp312-cp312-manylinux_2_6_i686"},
      {"3.12", "armv7l", "2.31", 474, "cp312-cp312-manylinux_2_31_armv7l",
       "cp312-cp312-manylinux2014_armv7l", "cp312-cp312-manylinux1_armv7l"},
      {"3.10", "s390x", "2.16", 36, "cp310-cp310-linux_s390x", "py310-none-any",
       "cp310-cp310-manylinux2014_s390x"},
      {"3.12", "x86_64", "3.1", 1419, "cp312-cp312-manylinux_3_1_x86_64",
       "cp312-cp312-manylinux_2_50_x86_64", "cp312-cp312-manylinux_2_51_x86_64"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.python, c.arch, c.glibc);
    const auto tags = tag_strings(supported_tags(target(c.python, c.arch, c.glibc)));
    REQUIRE(tags.size() == c.count);
    CHECK(tags.front() == c.first);
    CHECK(tags.back() == "py30-none-any");
    CHECK(position(tags, c.present) >= 0);
    CHECK(position(tags, c.absent) == -1);
  }
}

// Free-threaded builds (PEP 703) postdate packaging 23.0; the expected list
// is what packaging >= 24.1 yields: abi cp313t and no abi3 tags.
TEST_CASE("supported_tags for free-threaded 3.13t has cp313t and no abi3", "[pep][tags]") {
  const auto tags = tag_strings(supported_tags(target("3.13t", "x86_64", "2.28")));
  REQUIRE(tags.size() == 492);  // 28 x (cp313t + none + 15 py*) + 16 any
  CHECK(tags[0] == "cp313-cp313t-manylinux_2_28_x86_64");
  CHECK(tags[27] == "cp313-cp313t-linux_x86_64");
  CHECK(tags[28] == "cp313-none-manylinux_2_28_x86_64");
  CHECK(tags[56] == "py313-none-manylinux_2_28_x86_64");
  CHECK(position(tags, "cp313-cp313-manylinux_2_28_x86_64") == -1);
  CHECK(std::ranges::none_of(
      tags, [](const std::string& t) { return t.find("-abi3-") != std::string::npos; }));
  CHECK(position(tags, "cp313-none-any") == 476);
}

TEST_CASE("TagPriority ranks tags by their place in the supported list", "[pep][tags]") {
  const TagPriority priority(supported_tags(target("3.12", "x86_64", "2.28")));
  const auto rank = [&](std::string_view tag_set) {
    const auto tags = parse_tag_set(tag_set);
    REQUIRE(tags.has_value());
    return priority.best_rank(*tags);
  };
  const auto manylinux = rank("cp312-cp312-manylinux_2_28_x86_64");
  const auto linux_tag = rank("cp312-cp312-linux_x86_64");
  REQUIRE(manylinux.has_value());
  REQUIRE(linux_tag.has_value());
  CHECK(*manylinux == 0);
  CHECK(*linux_tag == 27);
  CHECK(*manylinux < *linux_tag);
  // The best of a compressed set: manylinux_2_17 (11) before manylinux2014 (12).
  CHECK(rank("py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64") == 392 + 11);
  CHECK(rank("cp313-cp313t-manylinux_2_28_x86_64") == std::nullopt);
  CHECK(rank("cp312-cp312-win_amd64") == std::nullopt);
  CHECK(rank("cp312-none-macosx_11_0_arm64") == std::nullopt);
  CHECK(rank("py312-none-any") == 757);
  CHECK(rank("py3-none-any") == 758);
  CHECK(priority.rank(Tag{"cp312", "abi3", "manylinux1_x86_64"}) == 28 + 26);
  CHECK(priority.rank(Tag{"cp312", "abi3", "manylinux_2_29_x86_64"}) == std::nullopt);
  CHECK(priority.best_rank({}) == std::nullopt);
}

TEST_CASE("a wheel needing glibc 2.28 is unsupported on a glibc 2.17 target", "[pep][tags]") {
  const TagPriority old_host(supported_tags(target("3.12", "x86_64", "2.17")));
  const TagPriority new_host(supported_tags(target("3.12", "x86_64", "2.28")));
  const Tag needs_228{"cp312", "cp312", "manylinux_2_28_x86_64"};
  const Tag needs_217{"cp312", "cp312", "manylinux_2_17_x86_64"};
  CHECK(old_host.rank(needs_228) == std::nullopt);
  CHECK(new_host.rank(needs_228) == 0);
  CHECK(old_host.rank(needs_217) == 0);
  CHECK(new_host.rank(needs_217) == 11);
}
