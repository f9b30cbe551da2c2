// Tests for PEP 508 markers (src/pep/marker.cpp). Expected values are the
// answers of python3-packaging 23.0 (str(Marker(...)), Marker.evaluate())
// for the same inputs, as its tests/test_markers.py does.
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "pep/marker.hpp"

using wheelmod::pep::Marker;
using wheelmod::pep::MarkerEnvironment;

namespace {

/// linux_cpython("3.12", "x86_64") with the kernel fields a real host has.
MarkerEnvironment host_312() {
  MarkerEnvironment env = MarkerEnvironment::linux_cpython("3.12", "x86_64");
  env.platform_release = "6.1.0-18-amd64";
  env.platform_version = "#1 SMP Debian";
  return env;
}

}  // namespace

TEST_CASE("Marker::str normalises as packaging's str(Marker)", "[pep][marker]") {
  struct Case {
    std::string_view input;
    std::string_view expected;
  };
  // Quotes become double quotes, spacing single, dotted names canonical,
  // Python escapes decoded, redundant parentheses dropped the way
  // _format_marker drops them (even `((a or b))`, which changes precedence),
  // the first `extra` comparison PEP 685 normalised, trailing text ignored.
  const std::vector<Case> cases = {
      {R"(python_version >= "3.12" and extra == "x")",
       R"(python_version >= "3.12" and extra == "x")"},
      {"python_version>='3.12'", R"(python_version >= "3.12")"},
      {"python_version>'3'and extra=='x'", R"(python_version > "3" and extra == "x")"},
      {"  os_name  ==  'posix'  ", R"(os_name == "posix")"},
      {"os.name == 'posix'", R"(os_name == "posix")"},
      {"sys.platform == 'linux'", R"(sys_platform == "linux")"},
      {"platform.machine == 'x86_64'", R"(platform_machine == "x86_64")"},
      {"platform.version == '1'", R"(platform_version == "1")"},
      {"platform.python_implementation == 'CPython'",
       R"(platform_python_implementation == "CPython")"},
      {"python_implementation == 'CPython'", R"(platform_python_implementation == "CPython")"},
      {"'linux' in sys_platform", R"("linux" in sys_platform)"},
      {"python_version not  in '3.10 3.11'", R"(python_version not in "3.10 3.11")"},
      {"python_version\tnot\tin '3.10'", R"(python_version not in "3.10")"},
      {"python_version === '3.12'", R"(python_version === "3.12")"},
      {"python_version ~= '3.12'", R"(python_version ~= "3.12")"},
      {"platform_release <= '6'", R"(platform_release <= "6")"},
      {"python_version > '3' garbage", R"(python_version > "3")"},
      {"(python_version > '3')", R"(python_version > "3")"},
      {"((python_version > '3'))", R"(python_version > "3")"},
      {"(python_version > '3') and (os_name == 'posix')",
       R"(python_version > "3" and os_name == "posix")"},
      {"python_version > '3' and (os_name == 'a' or os_name == 'b')",
       R"(python_version > "3" and (os_name == "a" or os_name == "b"))"},
      {"python_version > '3' and ((os_name == 'a' or os_name == 'b'))",
       R"(python_version > "3" and os_name == "a" or os_name == "b")"},
      {"(python_version > '3' or (os_name == 'a')) and ((os_name == 'b'))",
       R"((python_version > "3" or os_name == "a") and os_name == "b")"},
      {"python_version > '3' or os_name == 'a' and os_name == 'b'",
       R"(python_version > "3" or os_name == "a" and os_name == "b")"},
      {"extra == 'Foo_Bar'", R"(extra == "foo-bar")"},
      {"'Foo.Bar' == extra", R"("foo-bar" == extra)"},
      {"os_name == 'a' and extra == 'Foo_Bar'", R"(os_name == "a" and extra == "Foo_Bar")"},
      {"(extra == 'Foo_Bar')", R"(extra == "Foo_Bar")"},
      {"extra == python_version", R"(extra == "python-version")"},
      {"python_version == extra", R"("python-version" == extra)"},
      {"os_name == python_version", "os_name == python_version"},
      {R"('a\x41\u00e9' == os_name)",
       "\"aA\xc3"
       "\xa9"
       "\" == os_name"},
      {R"('a\d' == os_name)", R"("a\d" == os_name)"},
      {R"('a"b' == os_name)", R"("a"b" == os_name)"},
      {"'a\\\nb' == os_name", R"("ab" == os_name)"},
      {R"('\101\t' == os_name)", "\"A\t\" == os_name"},
      {"python_version > '3'\n", R"(python_version > "3")"},
      {"python_version>'3'and(os_name=='a')", R"(python_version > "3" and os_name == "a")"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.input);
    const auto marker = Marker::parse(c.input);
    REQUIRE(marker.has_value());
    CHECK(marker->str() == c.expected);
  }
}

TEST_CASE("Marker::str is a fixed point", "[pep][marker]") {
  for (std::string_view input : {R"(python_version > "3" and (os_name == "a" or os_name == "b"))",
                                 R"(extra == "foo-bar" or python_full_version < "3.12.1")"}) {
    CAPTURE(input);
    const auto marker = Marker::parse(input);
    REQUIRE(marker.has_value());
    REQUIRE(marker->str() == input);
    const auto again = Marker::parse(marker->str());
    REQUIRE(again.has_value());
    CHECK(again->str() == input);
  }
}

TEST_CASE("Marker::parse rejects what packaging rejects, saying what and where", "[pep][marker]") {
  struct Case {
    std::string_view input;
    std::string_view message;  // our whole message
  };
  const std::vector<Case> cases = {
      {"", "column 1: expected a marker variable or quoted string, found end of input"},
      {"python_version >= 3.12",
       "column 19: expected a marker variable or quoted string, found '3.12'"},
      {"python_version",
       "column 15: expected a marker operator, one of <=, <, !=, ==, >=, >, ~=, ===, in, not "
       "in, found end of input"},
      {"python_version notin 'x'",
       "column 16: expected a marker operator, one of <=, <, !=, ==, >=, >, ~=, ===, in, not "
       "in, found 'notin'"},
      {"python_version not 'x'", "column 20: expected 'in' after 'not', found ''x''"},
      {"python_version >< '3'",
       "column 17: expected a marker variable or quoted string, found '<'"},
      {"(python_version > '3'",
       "column 22: expected ')' to close the '(' at column 1, found end of input"},
      {"python_version > '3' and",
       "column 25: expected a marker variable or quoted string, found end of input"},
      {"python_version > '3' and (",
       "column 27: expected a marker variable or quoted string, found end of input"},
      {"platform.release == 'x'",
       "column 1: expected a marker variable or quoted string, found 'platform.release'"},
      {"python_versionin 'x'",
       "column 1: expected a marker variable or quoted string, found 'python_versionin'"},
      {"python_version == 'unterminated",
       "column 19: expected a marker variable or quoted string, found ''unterminated'"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.input);
    const auto marker = Marker::parse(c.input);
    REQUIRE_FALSE(marker.has_value());
    CHECK(marker.error().input == c.input);
    CHECK(marker.error().message == c.message);
  }
}

TEST_CASE("Marker::parse rejects quoted strings ast.literal_eval rejects", "[pep][marker]") {
  // packaging reads quoted strings with ast.literal_eval, which raises
  // SyntaxError for these (checked with Python 3.11).
  const std::vector<std::string_view> inputs = {
      "'a\\x4' == os_name",        // truncated \xXX
      "'\\u12' == os_name",        // truncated \uXXXX
      "'\\U00110000' == os_name",  // beyond U+10FFFF
      "'a\\' == os_name",          // the backslash escapes the closing quote
      "'a\nb' == os_name",         // a line break inside the literal
      "'a\rb' == os_name",
      std::string_view("'a\0b' == os_name", 16),  // NUL
      "'\\N{LATIN SMALL LETTER A}' == os_name",   // needs the Unicode name database
  };
  for (std::string_view input : inputs) {
    CAPTURE(input);
    const auto marker = Marker::parse(input);
    REQUIRE_FALSE(marker.has_value());
    CHECK_THAT(marker.error().message, Catch::StartsWith("column 1: "));
  }
}

TEST_CASE("Marker::evaluate follows packaging's _eval_op", "[pep][marker]") {
  struct Case {
    std::string_view marker;
    std::string_view extra;
    bool expected;
  };
  // Version operators when operator + right side is a valid specifier
  // (pre-releases allowed), Python string operators otherwise; `and`
  // before `or`; `extra` compared PEP 685 normalised on both sides.
  const std::vector<Case> cases = {
      {R"(python_version >= "3.12")", "", true},
      {R"(python_version >= "3.13")", "", false},
      {R"(python_version < "3.13a1")", "", true},
      {R"(python_version == "3.12.*")", "", true},
      {R"(python_version == "3.12.0")", "", true},
      {R"(python_version === "3.12")", "", true},
      {R"(python_version === "3.12.0")", "", false},
      {R"(python_version ~= "3.11")", "", true},
      {R"(python_version ~= "3.12.1")", "", false},
      {R"(python_version > "3.11.dev0")", "", true},
      {R"(python_version <= "3.12.0rc1")", "", false},
      {R"(python_version == "garbage")", "", false},
      {R"(python_version != "garbage")", "", true},
      {R"(python_version == " 3.12 ")", "", true},
      {R"(python_version == "v3.12")", "", true},
      {R"(python_version == "=3.12")", "", true},
      {R"(python_version >= "3.12.0+local")", "", false},
      {R"(python_version < "a")", "", true},
      {R"(python_version in "3.12.1")", "", true},
      {R"("3.12" in python_version)", "", true},
      {R"("3.12" not in python_version)", "", false},
      {R"("3.12" == "python_version")", "", true},
      {"python_version == python_full_version", "", false},
      {R"(platform_release == "6.1.0-18-amd64")", "", true},
      {R"(platform_release != "6.1.0-18-amd64")", "", false},
      {R"(platform_machine >= "x86")", "", true},
      {R"(platform_machine == "x86_64")", "", true},
      {R"(platform_machine != "aarch64")", "", true},
      {R"(os_name < "q")", "", true},
      {R"(sys_platform == "linux" and platform_system == "Linux")", "", true},
      {R"(platform_python_implementation == "CPython" and implementation_name == "cpython")", "",
       true},
      {R"(implementation_version >= "3.12")", "", true},
      {R"(python_version > "3.13" or os_name == "posix")", "", true},
      {R"(python_version > "3.13" or os_name == "posix" and os_name == "nt")", "", false},
      {R"((python_version > "3.13" or os_name == "posix") and os_name == "nt")", "", false},
      {R"(python_version > "3.13" and os_name == "nt" or sys_platform == "linux")", "", true},
      {R"(extra == "opt-einsum")", "", false},
      {R"(extra == "opt-einsum")", "opt-einsum", true},
      {R"(extra == "opt-einsum")", "Opt_Einsum", true},
      {R"(extra == "Opt.Einsum")", "opt-einsum", true},
      {R"("OPT_einsum" == extra)", "opt-einsum", true},
      {R"(extra != "x")", "", true},
      {R"(extra == "")", "", true},
      {R"(extra in "foo-bar")", "Foo_Bar", true},
      {R"(extra > "a")", "b", true},
      {R"(extra == "1.0")", "1", false},
      {R"(os_name == "posix" and extra == "Cuda_12")", "cuda.12", true},
  };
  const MarkerEnvironment env = host_312();
  for (const auto& c : cases) {
    CAPTURE(c.marker, c.extra);
    const auto marker = Marker::parse(c.marker);
    REQUIRE(marker.has_value());
    const auto value = marker->evaluate(env, c.extra);
    REQUIRE(value.has_value());
    CHECK(*value == c.expected);
  }
}

TEST_CASE("Marker::evaluate fails where packaging raises", "[pep][marker]") {
  struct Case {
    std::string_view marker;
    std::string_view message_part;
  };
  const std::vector<Case> cases = {
      // Neither a valid specifier nor a string operator: UndefinedComparison.
      {R"(python_version ~= "foo")", "undefined comparison '3.12' ~= 'foo'"},
      {R"(python_version ~= "3")", "undefined comparison '3.12' ~= '3'"},
      {R"(python_version === "a b")", "undefined comparison '3.12' === 'a b'"},
      // A valid specifier, but the left side is not a version: InvalidVersion.
      {R"(platform_release >= "5")", "invalid version '6.1.0-18-amd64'"},
      {R"(platform_release === "6.1.0-18-amd64")", "invalid version '6.1.0-18-amd64'"},
      {R"(platform_machine == "1.0")", "invalid version 'x86_64'"},
      {R"("garbage" == python_version)", "invalid version 'garbage'"},
      {R"(extra == "1.0")", "invalid version ''"},  // "1-0" is a valid ==1-0
      // A string on the left makes packaging look the right side's text up
      // in the environment: KeyError.
      {R"("a" == "b")", "unknown marker variable 'b'"},
      {R"("x" == "os.name")", "unknown marker variable 'os.name'"},
      // Every atom is evaluated, even after `or` is already true.
      {R"(python_version > "3" or python_version ~= "foo")", "undefined comparison"},
  };
  const MarkerEnvironment env = host_312();
  for (const auto& c : cases) {
    CAPTURE(c.marker);
    const auto marker = Marker::parse(c.marker);
    REQUIRE(marker.has_value());
    const auto value = marker->evaluate(env);
    REQUIRE_FALSE(value.has_value());
    CHECK_THAT(value.error().message, Catch::Contains(std::string(c.message_part)));
  }
}

TEST_CASE("MarkerEnvironment::linux_cpython fills a Linux CPython target", "[pep][marker]") {
  struct Case {
    std::string_view python;
    std::string_view machine;
    std::string_view python_version;
    std::string_view full_version;
  };
  const std::vector<Case> cases = {
      {"3.12", "x86_64", "3.12", "3.12.0"},
      {"3.11", "aarch64", "3.11", "3.11.0"},
      {"3.12.4", "x86_64", "3.12", "3.12.4"},
      {"3.9.18", "ppc64le", "3.9", "3.9.18"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.python, c.machine);
    const auto env = MarkerEnvironment::linux_cpython(c.python, c.machine);
    CHECK(env.python_version == c.python_version);
    CHECK(env.python_full_version == c.full_version);
    CHECK(env.implementation_version == c.full_version);
    CHECK(env.platform_machine == c.machine);
    CHECK(env.sys_platform == "linux");
    CHECK(env.platform_system == "Linux");
    CHECK(env.os_name == "posix");
    CHECK(env.implementation_name == "cpython");
    CHECK(env.platform_python_implementation == "CPython");
  }
}

TEST_CASE("MarkerEnvironment::lookup knows the PEP 508 names and old spellings", "[pep][marker]") {
  struct Case {
    std::string_view variable;
    std::string_view expected;
  };
  const std::vector<Case> cases = {
      {"python_version", "3.12"},
      {"python_full_version", "3.12.0"},
      {"implementation_version", "3.12.0"},
      {"implementation_name", "cpython"},
      {"os_name", "posix"},
      {"os.name", "posix"},
      {"sys_platform", "linux"},
      {"sys.platform", "linux"},
      {"platform_machine", "x86_64"},
      {"platform.machine", "x86_64"},
      {"platform_system", "Linux"},
      {"platform_release", "6.1.0-18-amd64"},
      {"platform_version", "#1 SMP Debian"},
      {"platform.version", "#1 SMP Debian"},
      {"platform_python_implementation", "CPython"},
      {"platform.python_implementation", "CPython"},
      {"python_implementation", "CPython"},
  };
  const MarkerEnvironment env = host_312();
  for (const auto& c : cases) {
    CAPTURE(c.variable);
    const auto value = env.lookup(c.variable);
    REQUIRE(value.has_value());
    CHECK(*value == c.expected);
  }
}

TEST_CASE("MarkerEnvironment::lookup rejects unknown names", "[pep][marker]") {
  const MarkerEnvironment env = host_312();
  for (std::string_view name : {"extra", "platform.release", "python", "Python_Version", ""}) {
    CAPTURE(name);
    CHECK_FALSE(env.lookup(name).has_value());
  }
}

TEST_CASE("Marker copies and moves keep the expression", "[pep][marker]") {
  auto parsed = Marker::parse(R"(os_name == "posix" and python_version < "3.13")");
  REQUIRE(parsed.has_value());
  Marker copy = *parsed;
  Marker assigned = *Marker::parse(R"(os_name == "nt")");
  assigned = copy;
  Marker moved = std::move(*parsed);
  const auto env = host_312();
  for (const Marker* m : {&copy, &assigned, &moved}) {
    CHECK(m->str() == R"(os_name == "posix" and python_version < "3.13")");
    CHECK(m->evaluate(env) == true);
  }
  CHECK(copy.evaluate(MarkerEnvironment::linux_cpython("3.13", "x86_64")) == false);
}
