// Expected values were produced with python3-packaging 23.0 (str(Version),
// comparisons, canonicalize_version) unless a row cites PEP 440 itself.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "pep/version.hpp"
#include "require_parsed.hpp"

using wheelmod::pep::canonicalize_version_text;
using wheelmod::pep::LocalSegment;
using wheelmod::pep::PrePhase;
using wheelmod::pep::Version;

namespace {

Version v(std::string_view text) {
  return wheelmod::test::require_parsed(Version::parse(text), "version");
}

}  // namespace

TEST_CASE("Version::parse normalises spellings", "[pep][version]") {
  // PEP 440 "Normalization": case, `v`, separators, alternative spellings,
  // implicit numbers, implicit post releases, local label separators.
  struct Case {
    std::string_view input;
    std::string_view expected;
  };
  const std::vector<Case> cases{
      {"1.0", "1.0"},
      {"1.0.0", "1.0.0"},
      {"01.02.003", "1.2.3"},
      {"v1.0", "1.0"},
      {"V1.0", "1.0"},
      {" 1.0 ", "1.0"},
      {"\t1.0\n", "1.0"},
      {"1.0\r\n", "1.0"},
      {"\0341.0\037", "1.0"},              // str.isspace() control characters
      {"\302\2401.0\343\200\200", "1.0"},  // U+00A0 and U+3000 are \s in Python
      {"1!1.0", "1!1.0"},
      {"0!1.0", "1.0"},
      {"01!1.0", "1!1.0"},
      {"v2!1.0", "2!1.0"},
      {"1.0a1", "1.0a1"},
      {"1.0A1", "1.0a1"},
      {"1.0alpha1", "1.0a1"},
      {"1.0ALPHA1", "1.0a1"},
      {"1.0.a1", "1.0a1"},
      {"1.0-a1", "1.0a1"},
      {"1.0_a1", "1.0a1"},
      {"1.0a.1", "1.0a1"},
      {"1.0a-1", "1.0a1"},  // the separator belongs to the pre-release, not `-1` post
      {"1.0a_1", "1.0a1"},
      {"1.0-alpha-1", "1.0a1"},
      {"1.0a", "1.0a0"},
      {"1.0a-", "1.0a0"},
      {"1.0a.", "1.0a0"},
      {"1.0b2", "1.0b2"},
      {"1.0beta2", "1.0b2"},
      {"1.0-beta.2", "1.0b2"},
      {"1.0c1", "1.0rc1"},
      {"1.0pre1", "1.0rc1"},
      {"1.0preview1", "1.0rc1"},
      {"1.0-PREVIEW-1", "1.0rc1"},
      {"1.0rc1", "1.0rc1"},
      {"1.0RC1", "1.0rc1"},
      {"1.0rc", "1.0rc0"},
      {"1.0.post1", "1.0.post1"},
      {"1.0post1", "1.0.post1"},
      {"1.0-post1", "1.0.post1"},
      {"1.0_post_1", "1.0.post1"},
      {"1.0.post", "1.0.post0"},
      {"1.0post", "1.0.post0"},
      {"1.0.post.", "1.0.post0"},
      {"1.0.post-", "1.0.post0"},
      {"1.0r1", "1.0.post1"},
      {"1.0rev1", "1.0.post1"},
      {"1.0-r-1", "1.0.post1"},
      {"1.0.REV", "1.0.post0"},
      {"1.0-1", "1.0.post1"},
      {"1.0-0", "1.0.post0"},
      {"1.0-01", "1.0.post1"},
      {"1.0.dev1", "1.0.dev1"},
      {"1.0dev1", "1.0.dev1"},
      {"1.0-dev1", "1.0.dev1"},
      {"1.0_dev_1", "1.0.dev1"},
      {"1.0.dev", "1.0.dev0"},
      {"1.0dev", "1.0.dev0"},
      {"1.0-DEV", "1.0.dev0"},
      {"1.0-dev-", "1.0.dev0"},
      {"1.0a1-1", "1.0a1.post1"},
      {"1.0a1.post2.dev3", "1.0a1.post2.dev3"},
      {"1.0rc1-dev2", "1.0rc1.dev2"},
      {"1.0.c.-1", "1.0rc0.post1"},
      {"1!2.0b3.post4.dev5+abc.6", "1!2.0b3.post4.dev5+abc.6"},
      {"1.0+abc", "1.0+abc"},
      {"1.0+ABC", "1.0+abc"},
      {"1.0+abc.5", "1.0+abc.5"},
      {"1.0+abc-5", "1.0+abc.5"},
      {"1.0+abc_5", "1.0+abc.5"},
      {"1.0+01", "1.0+1"},
      {"1.0+01.02", "1.0+1.2"},
      {"1.0+Cu126", "1.0+cu126"},
      {"2.6.0+cu126", "2.6.0+cu126"},
      {"1.0+a.B-c_D", "1.0+a.b.c.d"},
      {"1.0a.+x", "1.0a0+x"},
      {"1.0.post.+x", "1.0.post0+x"},
      {"0", "0"},
      {"00", "0"},
      {"18446744073709551615", "18446744073709551615"},
      {"1.18446744073709551615", "1.18446744073709551615"},
      {"000000000000000000000000001", "1"},  // leading zeros do not overflow
  };
  for (const Case& c : cases) {
    CAPTURE(c.input);
    const auto parsed = Version::parse(c.input);
    REQUIRE(parsed.has_value());
    CHECK(parsed->str() == c.expected);
    // The normal form parses back to itself.
    CHECK(v(parsed->str()).str() == c.expected);
  }
}

TEST_CASE("Version::parse fills every part", "[pep][version]") {
  const Version full = v("v1!2.0.3-Preview_4.rev-5.DEV6+Ab.07-x");
  CHECK(full.epoch() == 1);
  CHECK(full.release() == std::vector<std::uint64_t>{2, 0, 3});
  REQUIRE(full.pre().has_value());
  CHECK(full.pre()->phase == PrePhase::rc);
  CHECK(full.pre()->number == 4);
  CHECK(full.post() == std::optional<std::uint64_t>{5});
  CHECK(full.dev() == std::optional<std::uint64_t>{6});
  CHECK(full.local() ==
        std::vector<LocalSegment>{std::string("ab"), std::uint64_t{7}, std::string("x")});
  CHECK(full.str() == "1!2.0.3rc4.post5.dev6+ab.7.x");

  const Version plain = v("3");
  CHECK(plain.epoch() == 0);
  CHECK(plain.release() == std::vector<std::uint64_t>{3});
  CHECK_FALSE(plain.pre().has_value());
  CHECK_FALSE(plain.post().has_value());
  CHECK_FALSE(plain.dev().has_value());
  CHECK(plain.local().empty());
}

TEST_CASE("Version::parse rejects text that is not PEP 440", "[pep][version]") {
  struct Case {
    std::string_view input;
    std::string_view message;
  };
  const std::vector<Case> cases{
      {"", "version is empty"},
      {"   ", "version is empty"},
      {"x1", "a version starts with a number (like '1.0'), got 'x1'"},
      {"vv1.0", "a version starts with a number (like '1.0'), got 'v1.0'"},
      {".1", "a version starts with a number (like '1.0'), got '.1'"},
      {"1!", "epoch '1!' must be followed by a release number"},
      {"1!x", "epoch '1!' must be followed by a release number"},
      {"1!v1.0", "epoch '1!' must be followed by a release number"},
      {"1.0.x",
       "unexpected '.x' after '1.0'; expected another release number (.1), a pre-release (a1, b1, "
       "rc1), a post-release (.post1), a dev-release (.dev1) or a local label (+abc)"},
      {"1.0-", "unexpected '-' after '1.0'"},
      {"1.0.", "unexpected '.' after '1.0'"},
      {"1..0", "unexpected '..0' after '1'"},
      {"1,0", "unexpected ',0' after '1'"},
      {"1.*", "unexpected '.*' after '1'"},
      {"1.0e", "unexpected 'e' after '1.0'"},
      {"1.0 rc1", "unexpected ' rc1' after '1.0'"},
      {"1.0a1.",
       "unexpected '.' after '1.0a1'; expected a post-release (.post1), a dev-release (.dev1) or a "
       "local label (+abc)"},
      {"1.0a1b1", "unexpected 'b1' after '1.0a1'"},
      {"1.0.post1a1",
       "unexpected 'a1' after '1.0.post1'; expected a dev-release (.dev1) or a local label (+abc)"},
      {"1.0_1", "unexpected '_1' after '1.0'"},  // only `-N` is an implicit post release
      {"1.0-1-1", "unexpected '-1' after '1.0-1'"},
      {"1.0.dev1.post1", "unexpected '.post1' after '1.0.dev1'; expected a local label (+abc)"},
      {"1.0;", "unexpected ';' after '1.0'"},
      {"1.0+", "local label '+' must be letters and digits separated by '.', '-' or '_'"},
      {"1.0+a..b", "local label '+a..b' must be letters and digits"},
      {"1.0+a_", "local label '+a_' must be letters and digits"},
      {"1.0+-a", "local label '+-a' must be letters and digits"},
      {"1.0+a+b", "local label '+a+b' must be letters and digits"},
      {"1.0+a b", "local label '+a b' must be letters and digits"},
      {"1.0+caf\xc3\xa9", "local label '+caf\xc3\xa9' must be letters and digits"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.input);
    const auto parsed = Version::parse(c.input);
    REQUIRE_FALSE(parsed.has_value());
    CHECK(parsed.error().input == c.input);
    CHECK_THAT(parsed.error().message, Catch::StartsWith(std::string(c.message)));
  }
  CHECK(Version::parse("1.0.x").error().describe("version").starts_with(
      "invalid version '1.0.x': unexpected '.x'"));
}

TEST_CASE("Version::parse rejects numbers that do not fit in uint64", "[pep][version]") {
  // A deliberate difference from Python's unbounded int (version.hpp).
  struct Case {
    std::string_view input;
    std::string_view message;
  };
  const std::vector<Case> cases{
      {"18446744073709551616",
       "release number '18446744073709551616' is too large (at most 18446744073709551615)"},
      {"1.99999999999999999999", "release number '99999999999999999999' is too large"},
      {"18446744073709551616!1", "release number '18446744073709551616' is too large"},
      {"1.0a18446744073709551616", "pre-release number '18446744073709551616' is too large"},
      {"1.0-18446744073709551616", "post-release number '18446744073709551616' is too large"},
      {"1.0.post18446744073709551616", "post-release number '18446744073709551616' is too large"},
      {"1.0.dev18446744073709551616", "dev-release number '18446744073709551616' is too large"},
      {"1.0+abc.18446744073709551616", "local label number '18446744073709551616' is too large"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.input);
    const auto parsed = Version::parse(c.input);
    REQUIRE_FALSE(parsed.has_value());
    CHECK_THAT(parsed.error().message, Catch::StartsWith(std::string(c.message)));
  }
  // Alphanumeric local segments hold digits as text, so they never overflow.
  CHECK(v("1.0+a18446744073709551616").local_str() == "a18446744073709551616");
}

TEST_CASE("Version ordering follows PEP 440", "[pep][version]") {
  // PEP 440 "Summary of permitted suffixes and relative ordering", extended
  // with the local-label and epoch rows of packaging's tests/test_version.py.
  const std::vector<std::string_view> ascending{
      "1.dev0",
      "1.0.dev456",
      "1.0a1",
      "1.0a2.dev456",
      "1.0a12.dev456",
      "1.0a12",
      "1.0b1.dev456",
      "1.0b2",
      "1.0b2.post345.dev456",
      "1.0b2.post345",
      "1.0b2-346",
      "1.0c1.dev456",
      "1.0c1",
      "1.0rc2",
      "1.0c3",
      "1.0",
      "1.0+abc.5",
      "1.0+abc.7",
      "1.0+5",
      "1.0.post456.dev34",
      "1.0.post456",
      "1.0.15",
      "1.1.dev1",
      "1.2+123abc",
      "1.2+123abc456",
      "1.2+abc",
      "1.2+abc123",
      "1.2+abc123def",
      "1.2+1234.abc",
      "1.2+123456",
      "1.2.r32+123456",
      "1.2.rev33+123456",
      "1!1.0.dev456",
      "1!1.0",
      "1!1.0.post456",
  };
  for (std::size_t i = 0; i < ascending.size(); ++i) {
    for (std::size_t j = 0; j < ascending.size(); ++j) {
      CAPTURE(ascending[i], ascending[j]);
      const auto order = v(ascending[i]) <=> v(ascending[j]);
      if (i < j) CHECK(order == std::strong_ordering::less);
      if (i == j) CHECK(order == std::strong_ordering::equal);
      if (i > j) CHECK(order == std::strong_ordering::greater);
    }
  }
}

TEST_CASE("Version equality ignores spelling and trailing zeros", "[pep][version]") {
  struct Case {
    std::string_view a;
    std::string_view b;
    bool equal;
  };
  const std::vector<Case> cases{
      {"1.0", "1.0.0", true},  // str() differs, the order does not (packaging _cmpkey)
      {"1", "1.0.0.0", true},      {"0", "0.0", true},          {"1.0+ABC", "1.0+abc", true},
      {"1.0+01", "1.0+1", true},   {"1.0.0.0+1", "1+1", true},  {"v1.0", "1.0", true},
      {"0!1.0", "1.0", true},      {"1.0a", "1.0a0", true},     {"1.0-1", "1.0.post1", true},
      {"1.0c1", "1.0rc1", true},   {"1.0.1", "1.0.10", false},  {"1.0", "1.0+0", false},
      {"1.0+a", "1.0+a.0", false}, {"1.0.post0", "1.0", false}, {"1.0.dev0", "1.0", false},
      {"1!1.0", "1.0", false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.a, c.b);
    CHECK((v(c.a) == v(c.b)) == c.equal);
    CHECK((v(c.b) == v(c.a)) == c.equal);
  }
}

TEST_CASE("Version public, base and local parts", "[pep][version]") {
  struct Case {
    std::string_view input;
    std::string_view public_version;
    std::string_view base_version;
    std::string_view local;
    bool pre;
    bool post;
    bool dev;
  };
  const std::vector<Case> cases{
      {"1.0", "1.0", "1.0", "", false, false, false},
      {"1.0.0a1", "1.0.0a1", "1.0.0", "", true, false, false},
      {"1.0.dev1", "1.0.dev1", "1.0", "", true, false, true},
      {"1.0.post1", "1.0.post1", "1.0", "", false, true, false},
      {"1.0.post1.dev1", "1.0.post1.dev1", "1.0", "", true, true, true},
      {"1.0rc1.post1", "1.0rc1.post1", "1.0", "", true, true, false},
      {"1.0+local", "1.0", "1.0", "local", false, false, false},
      {"2.6.0+CU126", "2.6.0", "2.6.0", "cu126", false, false, false},
      {"1!2.0.0a1.post2.dev3+ab.012", "1!2.0.0a1.post2.dev3", "1!2.0.0", "ab.12", true, true, true},
  };
  for (const Case& c : cases) {
    CAPTURE(c.input);
    const Version version = v(c.input);
    CHECK(version.public_version().str() == c.public_version);
    CHECK(version.base_version().str() == c.base_version);
    CHECK(version.local_str() == c.local);
    CHECK(version.has_local() == !c.local.empty());
    CHECK(version.is_prerelease() == c.pre);
    CHECK(version.is_postrelease() == c.post);
    CHECK(version.is_devrelease() == c.dev);
  }
}

TEST_CASE("canonicalize_version_text keeps trailing zeros and invalid text", "[pep][version]") {
  // packaging.utils.canonicalize_version(text, strip_trailing_zero=False).
  struct Case {
    std::string_view input;
    std::string_view expected;
  };
  const std::vector<Case> cases{
      {"1.0.0", "1.0.0"},     {"v1.0", "1.0"}, {"1.0-1", "1.0.post1"}, {" 1.0a", "1.0a0"},
      {"1.0+A-b", "1.0+a.b"}, {"foo", "foo"},  {"1.0.*", "1.0.*"},     {"", ""},
  };
  for (const Case& c : cases) {
    CAPTURE(c.input);
    CHECK(canonicalize_version_text(c.input) == c.expected);
  }
}
