// Expected values were produced with python3-packaging 23.0
// (packaging.specifiers) unless a row cites PEP 440 itself.
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "pep/specifier.hpp"
#include "pep/version.hpp"
#include "require_parsed.hpp"

using wheelmod::pep::Operator;
using wheelmod::pep::operator_text;
using wheelmod::pep::Prereleases;
using wheelmod::pep::Specifier;
using wheelmod::pep::SpecifierSet;
using wheelmod::pep::Version;

namespace {

Version v(std::string_view text) {
  return wheelmod::test::require_parsed(Version::parse(text), "version");
}

Specifier spec(std::string_view text) {
  return wheelmod::test::require_parsed(Specifier::parse(text), "specifier");
}

SpecifierSet spec_set(std::string_view text) {
  return wheelmod::test::require_parsed(SpecifierSet::parse(text), "specifier set");
}

}  // namespace

TEST_CASE("operator_text spells every operator", "[pep][specifier]") {
  struct Case {
    Operator op;
    std::string_view text;
  };
  const std::vector<Case> cases{
      {Operator::compatible, "~="}, {Operator::equal, "=="},         {Operator::not_equal, "!="},
      {Operator::less_equal, "<="}, {Operator::greater_equal, ">="}, {Operator::less, "<"},
      {Operator::greater, ">"},     {Operator::arbitrary, "==="},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    CHECK(operator_text(c.op) == c.text);
  }
}

TEST_CASE("Specifier::parse accepts PEP 440 clauses", "[pep][specifier]") {
  struct Case {
    std::string_view input;
    std::string_view str;
    Operator op;
    std::string_view version;
    bool wildcard;
  };
  const std::vector<Case> cases{
      {">=2.6", ">=2.6", Operator::greater_equal, "2.6", false},
      {"==2.6.*", "==2.6.*", Operator::equal, "2.6.*", true},
      {"!=2.6.*", "!=2.6.*", Operator::not_equal, "2.6.*", true},
      {"== 2.6.0+cu126", "==2.6.0+cu126", Operator::equal, "2.6.0+cu126", false},
      {"!=1.0+abc", "!=1.0+abc", Operator::not_equal, "1.0+abc", false},
      {" ~= 2.6 ", "~=2.6", Operator::compatible, "2.6", false},
      {"~=v1.0", "~=v1.0", Operator::compatible, "v1.0", false},  // kept as written
      {"~=1.4.5a4", "~=1.4.5a4", Operator::compatible, "1.4.5a4", false},
      {"<=1.0a1", "<=1.0a1", Operator::less_equal, "1.0a1", false},
      {">1.0.post1", ">1.0.post1", Operator::greater, "1.0.post1", false},
      {"<1!2.0", "<1!2.0", Operator::less, "1!2.0", false},
      {"==1.0-1", "==1.0-1", Operator::equal, "1.0-1", false},
      {"==V1.0.*", "==V1.0.*", Operator::equal, "V1.0.*", true},
      {"==1!2.*", "==1!2.*", Operator::equal, "1!2.*", true},
      {">=1.0\t", ">=1.0", Operator::greater_equal, "1.0", false},
      // PEP 440 "Arbitrary equality": any word; packaging even takes none.
      {"===foobar", "===foobar", Operator::arbitrary, "foobar", false},
      {"=== foo ", "===foo", Operator::arbitrary, "foo", false},
      {"===", "===", Operator::arbitrary, "", false},
      {"====1", "====1", Operator::arbitrary, "=1", false},
      {"===1.0.*", "===1.0.*", Operator::arbitrary, "1.0.*", false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.input);
    const Specifier s = spec(c.input);
    CHECK(s.str() == c.str);
    CHECK(s.op() == c.op);
    CHECK(s.version_text() == c.version);
    CHECK(s.wildcard() == c.wildcard);
    CHECK(spec(s.str()) == s);  // str() round trips
  }
}

TEST_CASE("Specifier::parse rejects clauses PEP 440 does not allow", "[pep][specifier]") {
  struct Case {
    std::string_view input;
    std::string_view message;
  };
  const std::vector<Case> cases{
      {"~=1", "'~=' needs at least two release numbers, such as '~=1.0'"},
      {"~= 1", "'~=' needs at least two release numbers"},
      {"<=1.0.*", "'.*' is only allowed with == and != (PEP 440 prefix matching), got '<=1.0.*'"},
      {"~=1.0.*", "'.*' is only allowed with == and !="},
      {">1.0.*", "'.*' is only allowed with == and !="},
      {"==1.0a1.*", "'.*' must follow a release such as '2.6', got '1.0a1'"},
      {"==1.0.post1.*", "'.*' must follow a release such as '2.6', got '1.0.post1'"},
      {"==1.0.*.*", "'.*' must follow a release such as '2.6', got '1.0.*'"},
      {"==.*", "'.*' must follow a release such as '2.6', got ''"},
      {"== 1.0 .*", "'.*' must follow a release such as '2.6', got '1.0 '"},
      {">=1.0+local", "a local label ('+local') is only allowed with == and !="},
      {"~=1.0+local", "a local label ('+local') is only allowed with == and !="},
      {"<1.0+l", "a local label ('+l') is only allowed with == and !="},
      {"lolwat", "a specifier starts with one of ~= == != <= >= < > ===, got 'lolwat'"},
      {"=1.0", "a specifier starts with one of"},
      {"=>1.0", "a specifier starts with one of"},
      {"", "a specifier needs an operator and a version, such as '>=2.6'"},
      {"=== foo bar", "'===' takes a single word without spaces, ';' or ')', got 'foo bar'"},
      {"===foo)", "'===' takes a single word without spaces, ';' or ')'"},
      {"===foo;", "'===' takes a single word without spaces, ';' or ')'"},
      {">=", "operator '>=' needs a version after it"},
      {"==", "operator '==' needs a version after it"},
      {"> = 1.0", "version '= 1.0': a version starts with a number"},
      {"==1.x", "version '1.x': unexpected '.x' after '1'"},
      {">=1.0,", "version '1.0,': unexpected ','"},
      {">=99999999999999999999", "version '99999999999999999999': release number"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.input);
    const auto parsed = Specifier::parse(c.input);
    REQUIRE_FALSE(parsed.has_value());
    CHECK(parsed.error().input == c.input);
    CHECK_THAT(parsed.error().message, Catch::StartsWith(std::string(c.message)));
  }
}

TEST_CASE("Specifier::matches applies each operator", "[pep][specifier]") {
  // Pre-releases allowed, so only the comparison itself is tested here.
  struct Case {
    std::string_view specifier;
    std::string_view version;
    bool expected;
  };
  const std::vector<Case> cases{
      // PEP 440 "Version matching": local labels.
      {"==2.6.0", "2.6.0+cu126", true},
      {"==2.6.0+cu126", "2.6.0+cpu", false},
      {"==2.6.0+cu126", "2.6.0+cu126", true},
      {"==2.6.0+cu126", "2.6.0", false},
      {"==2.6", "2.6.0+cu126", true},
      {"!=2.6.0", "2.6.0+cu126", false},
      {"!=2.6.0+cu126", "2.6.0+cpu", true},
      {"==2.6.0+CU126", "2.6.0+cu126", true},
      {"==1.0+1", "1.0+01", true},
      // Prefix matching, zero-padded (packaging _pad_version).
      {"==2.6.*", "2.6", true},
      {"==2.6.*", "2.6.0", true},
      {"==2.6.*", "2.6.3", true},
      {"==2.6.*", "2.6.0+cu126", true},
      {"==2.6.*", "2.6.0rc1", true},
      {"==2.6.*", "2.6.post1", true},
      {"==2.6.*", "2.7", false},
      {"==2.6.*", "2.60", false},
      {"==2.6.*", "2", false},
      {"==2.6.0.*", "2.6", true},
      {"==2.6.0.*", "2.6.1", false},
      {"==2.*", "2.0.0.0", true},
      {"==1!2.*", "1!2.3", true},
      {"==1!2.0.*", "1!2.0", false},  // packaging quirk: the epoch hides the release from padding
      {"==0!2.*", "2.5", true},
      {"!=2.6.*", "2.6.1", false},
      {"!=2.6.*", "2.7", true},
      {"!=2.6.*", "2.6.0+cu126", false},
      {"==v2.6.*", "2.6.4", true},
      // PEP 440 "Compatible release".
      {"~=2.6", "2.6", true},
      {"~=2.6", "2.9", true},
      {"~=2.6", "3.0", false},
      {"~=2.6", "2.5", false},
      {"~=2.6", "2.6.post1", true},
      {"~=2.6.0", "2.6.5", true},
      {"~=2.6.0", "2.7.0", false},
      {"~=2.6.0", "2.6.0+cu126", true},
      {"~=1.4.5a4", "1.4.5", true},
      {"~=1.4.5a4", "1.4.6", true},
      {"~=1.4.5a4", "1.5", false},
      {"~=2.2.post3", "2.2.post4", true},
      {"~=2.2.post3", "3.0", false},
      {"~=1.4.5.pre4", "1.4.6", false},  // packaging quirk: `pre4` is not seen as a suffix
      {"~=1.4.5rc4", "1.4.6", true},
      {"~=1!1.0", "1!1.5", true},
      {"~=1!1.0", "1.5", false},
      // PEP 440 "Exclusive ordered comparison".
      {"<2.6", "2.6.0rc1", false},
      {"<2.6", "2.5", true},
      {"<2.6", "2.6.dev0", false},
      {"<2.6", "2.5.99rc1", true},
      {"<2.6rc2", "2.6rc1", true},
      {"<2.6", "2.5+local", true},
      {"<2.6", "2.6+local", false},
      {">2.6", "2.6.post1", false},
      {">2.6", "2.6+local", false},
      {">2.6", "2.6.1", true},
      {">2.6", "2.7.post1", true},
      {">2.6.post1", "2.6.post2", true},
      {">2.6", "2.6.0.1", true},
      {">2.6", "2.6.0.post1", false},
      {">2.6.post1", "2.6.post1+local", false},
      {">2.6", "2.6.1+local", true},
      // Inclusive ordered comparison ignores the local label.
      {"<=2.6", "2.6+local", true},
      {">=2.6", "2.6+local", true},
      {"<=2.6", "2.6.post1", false},
      {">=2.6", "2.6rc1", false},
      // PEP 440 "Arbitrary equality": str(Version) against the text, case-folded.
      {"===2.6.0", "2.6.0", true},
      {"===2.6.0", "2.6", false},
      {"===2.6", "2.6.0", false},
      {"===2.6.0RC1", "2.6.0rc1", true},
      {"===foobar", "1.0", false},
      {"===2.6.0+cu126", "2.6.0+cu126", true},
      {"===2.6.0", "2.6.0+cu126", false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.specifier, c.version);
    const Specifier s = spec(c.specifier);
    CHECK(s.matches(v(c.version)) == c.expected);
    CHECK(s.contains(v(c.version), Prereleases::allow) == c.expected);
  }
}

TEST_CASE("Specifier pre-release gate", "[pep][specifier]") {
  // PEP 440 "Handling of pre-releases", as packaging's Specifier.prereleases.
  struct Case {
    std::string_view specifier;
    std::string_view version;
    bool implies;
    bool implied;
    bool allow;
    bool deny;
  };
  const std::vector<Case> cases{
      {">=2.6", "2.7rc1", false, false, true, false},
      {">=2.6rc1", "2.7rc1", true, true, true, false},
      {">=2.6rc1", "2.7.dev1", true, true, true, false},
      {"<=2.6rc1", "2.5a1", true, true, true, false},
      {"==2.6rc1", "2.6rc1", true, true, true, false},
      {"==2.6.*", "2.6rc1", false, false, true, false},
      {"~=2.6rc1", "2.6rc2", true, true, true, false},
      {"<2.7rc1", "2.6rc1", false, false, true, false},  // only inclusive operators imply
      {">2.6a1", "2.6rc1", false, false, true, false},
      {"!=2.6rc1", "2.7a1", false, false, true, false},
      {"===2.6rc1", "2.6rc1", true, true, true, false},
      {">=2.6", "2.6.post1.dev1", false, false, true, false},
      {">=2.6", "2.7", false, true, true, true},  // finals pass every gate
      {"===foobar", "1.0", false, false, false, false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.specifier, c.version);
    const Specifier s = spec(c.specifier);
    CHECK(s.implies_prereleases() == c.implies);
    CHECK(s.contains(v(c.version)) == c.implied);
    CHECK(s.contains(v(c.version), Prereleases::allow) == c.allow);
    CHECK(s.contains(v(c.version), Prereleases::deny) == c.deny);
  }
}

TEST_CASE("SpecifierSet::parse sorts, de-duplicates and round trips", "[pep][specifier]") {
  struct Case {
    std::string_view input;
    std::string_view str;
    std::size_t size;
  };
  const std::vector<Case> cases{
      {"", "", 0},
      {" , ", "", 0},
      {">=2.6,<2.8", "<2.8,>=2.6", 2},
      {"<2.8, >=2.6", "<2.8,>=2.6", 2},
      {"  >=2.6 ,,, <2.8 ", "<2.8,>=2.6", 2},
      {">=1.0.0,!=1.0.1", "!=1.0.1,>=1.0.0", 2},
      {"<3,>=2.6,!=2.7.*", "!=2.7.*,<3,>=2.6", 3},
      // Duplicates by packaging's canonical form; the first spelling stays.
      {"==1.0,==1.0.0", "==1.0", 1},
      {"===1.0,===1.0.0", "===1.0", 1},
      {">=1.0, >=v1.0,>=1.0.0", ">=1.0", 1},
      {"==2.6.0+cu126,==2.6.0+CU126", "==2.6.0+cu126", 1},
      {"!=2.6.1,!=2.6.1", "!=2.6.1", 1},
      {"~=1.0,~=1.0.0", "~=1.0,~=1.0.0", 2},  // `~=` keeps trailing zeros
      {"==2.6.*,==2.6.0.*", "==2.6.*,==2.6.0.*", 2},
  };
  for (const Case& c : cases) {
    CAPTURE(c.input);
    const SpecifierSet set = spec_set(c.input);
    CHECK(set.str() == c.str);
    CHECK(set.specifiers().size() == c.size);
    CHECK(set.empty() == (c.size == 0));
    CHECK(spec_set(set.str()).str() == c.str);
  }
}

TEST_CASE("SpecifierSet::parse names the invalid clause", "[pep][specifier]") {
  struct Case {
    std::string_view input;
    std::string_view message;
  };
  const std::vector<Case> cases{
      {">=2.6, ~=2 ,<3", "clause '~=2': '~=' needs at least two release numbers"},
      {">=2.6,lolwat", "clause 'lolwat': a specifier starts with one of"},
      {">=1,!=99999999999999999999", "clause '!=99999999999999999999': version"},
      {"~=2", "'~=' needs at least two release numbers"},  // one clause: no repetition
      {" >=2.6+cu126 ", "a local label ('+cu126') is only allowed with == and !="},
  };
  for (const Case& c : cases) {
    CAPTURE(c.input);
    const auto parsed = SpecifierSet::parse(c.input);
    REQUIRE_FALSE(parsed.has_value());
    CHECK(parsed.error().input == c.input);
    CHECK_THAT(parsed.error().message, Catch::StartsWith(std::string(c.message)));
  }
}

TEST_CASE("SpecifierSet::contains intersects its clauses", "[pep][specifier]") {
  struct Case {
    std::string_view specifiers;
    std::string_view version;
    bool implied;
    bool allow;
    bool deny;
  };
  const std::vector<Case> cases{
      {"", "2.6", true, true, true},
      {"", "2.6rc1", false, true, false},  // an empty set denies pre-releases by default
      {"", "2.6+cu126", true, true, true},
      {">=2.6,<2.8", "2.7", true, true, true},
      {">=2.6,<2.8", "2.8", false, false, false},
      {">=2.6,<2.8", "2.5", false, false, false},
      {">=2.6,<2.8", "2.7rc1", false, true, false},
      {">=2.6rc1,<2.8", "2.7rc1", true, true, false},  // one clause allows them for all
      {">=2.6,<2.8rc1", "2.7rc1", false, true, false},
      {">=2.6,<2.8rc1", "2.8rc1", false, false, false},
      {">=2.6,!=2.7.*", "2.7.1", false, false, false},
      {">=2.6,!=2.7.*", "2.8", true, true, true},
      {"==2.6.0", "2.6.0+cu126", true, true, true},
      {"==2.6.*,!=2.6.1", "2.6.1+cu126", false, false, false},
      {"~=2.6.0,!=2.6.3", "2.6.4", true, true, true},
      {"===1.0,===1.0.0", "1.0", true, true, true},  // de-duplicated to `===1.0`
      {"===1.0,===1.0.0", "1.0.0", false, false, false},
      {">=1.0a1,!=1.0", "1.0b1", true, true, false},
      {"<2,>=1.0.dev0", "1.5.dev3", true, true, false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.specifiers, c.version);
    const SpecifierSet set = spec_set(c.specifiers);
    CHECK(set.contains(v(c.version)) == c.implied);
    CHECK(set.contains(v(c.version), Prereleases::allow) == c.allow);
    CHECK(set.contains(v(c.version), Prereleases::deny) == c.deny);
  }
}

TEST_CASE("SpecifierSet::add unions clauses like packaging's &", "[pep][specifier]") {
  struct Case {
    std::string_view left;
    std::string_view right;
    std::string_view str;
  };
  const std::vector<Case> cases{
      {">=1.0.0,!=1.0.1", "<=2.0.0,!=2.0.1", "!=1.0.1,!=2.0.1,<=2.0.0,>=1.0.0"},
      {">=2.6", ">=2.6.0,<3", "<3,>=2.6"},
      {"", ">=1", ">=1"},
      {">=1", "", ">=1"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.left, c.right);
    SpecifierSet set = spec_set(c.left);
    set.add(spec_set(c.right));
    CHECK(set.str() == c.str);
  }
  SpecifierSet torch = spec_set(">=2.6");
  torch.add(spec_set("<2.7"));
  CHECK(torch.contains(v("2.6.0+cu126")));
  CHECK_FALSE(torch.contains(v("2.7.0")));
  CHECK_FALSE(torch.contains(v("2.6.1rc1")));
}
