// Tests for PEP 508 dependency specifiers (src/pep/requirement.cpp).
// Expected values are python3-packaging 23.0's str(Requirement(...)) and
// fields for the same inputs (its tests/test_requirements.py idea), plus the
// torch 2.6.0 Requires-Dist lines (PyPI's torch 2.6.0 METADATA; the +cu126
// pins as quoted in astral-sh/uv#10119).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "pep/requirement.hpp"

using wheelmod::pep::MarkerEnvironment;
using wheelmod::pep::Requirement;

TEST_CASE("Requirement::str normalises as packaging's str(Requirement)", "[pep][requirement]") {
  struct Case {
    std::string_view input;
    std::string_view expected;
  };
  // Extras sorted and deduplicated, specifiers sorted, `name@ url`, a space
  // before `;` only after a URL (a URL may swallow a `;` with no space).
  const std::vector<Case> cases = {
      {"torch", "torch"},
      {"  torch  ", "torch"},
      {"Typing_Extensions>=4.10.0", "Typing_Extensions>=4.10.0"},
      {"torch==2.6.0+cu126", "torch==2.6.0+cu126"},
      {"torch (==2.6.0+cu126)", "torch==2.6.0+cu126"},
      {"torch ( >=2.6 , <2.8 )", "torch<2.8,>=2.6"},
      {"foo >=1.0 ,<2 ,", "foo<2,>=1.0"},
      {"foo[b,a,a]>=1.0,<2", "foo[a,b]<2,>=1.0"},
      {"foo[ b , a ]", "foo[a,b]"},
      {"foo[]", "foo"},
      {"Foo_Bar[X]~=1.0.0", "Foo_Bar[X]~=1.0.0"},
      {"foo ==1.0.* ; os_name == 'a'", R"(foo==1.0.*; os_name == "a")"},
      {"foo;os_name=='a'", R"(foo; os_name == "a")"},
      {"foo@ file:///x", "foo@ file:///x"},
      {"foo @ file:///x ; os_name=='a'", R"(foo@ file:///x ; os_name == "a")"},
      {"foo @ https://example.com/foo-1.0-py3-none-any.whl",
       "foo@ https://example.com/foo-1.0-py3-none-any.whl"},
      {"foo @ https://example.com/foo.whl#sha256=abc ; python_version >= '3.12'",
       R"(foo@ https://example.com/foo.whl#sha256=abc ; python_version >= "3.12")"},
      {"foo@ http://x/y?;os_name=='a'", "foo@ http://x/y?;os_name=='a'"},
      {"foo\n", "foo"},
      {R"(nvidia-cudnn-cu12==9.5.1.17; platform_system == "Linux" and platform_machine == "x86_64")",
       R"(nvidia-cudnn-cu12==9.5.1.17; platform_system == "Linux" and platform_machine == "x86_64")"},
      {"cuda-toolkit[cublas,cudart,cufft,cufile,cupti,curand,cusolver,cusparse,nvjitlink,nvrtc,"
       "nvtx]==13.0.2",
       "cuda-toolkit[cublas,cudart,cufft,cufile,cupti,curand,cusolver,cusparse,nvjitlink,nvrtc,"
       "nvtx]==13.0.2"},
      {R"(cuda-bindings<14,>=13.0.3; platform_system == "Linux" and python_version < "3.15")",
       R"(cuda-bindings<14,>=13.0.3; platform_system == "Linux" and python_version < "3.15")"},
      {R"(opt-einsum>=3.3; extra == "opt-einsum")", R"(opt-einsum>=3.3; extra == "opt-einsum")"},
      {"foo; extra == 'Opt_Einsum'", R"(foo; extra == "opt-einsum")"},
      {"foo===1.0.local", "foo===1.0.local"},
      {"foo<=1.0a", "foo<=1.0a"},
      {"foo==1.0.post1.dev2+cpu.1", "foo==1.0.post1.dev2+cpu.1"},
      {"foo @ http://[::1]:8080/x", "foo@ http://[::1]:8080/x"},
      {"foo @ http://[v1.x]/x", "foo@ http://[v1.x]/x"},
      {"foo @ git+https://github.com/a/b.git@v1", "foo@ git+https://github.com/a/b.git@v1"},
      {"foo>=1.0rc1-1", "foo>=1.0rc1-1"},
      {"foo>=1!2.0", "foo>=1!2.0"},
      {"foo==V1.0", "foo==V1.0"},
      {"foo  ==  1.0", "foo==1.0"},
      {"pytorch-triton==3.2.0+git4b3bb1f8; platform_system == 'Linux' and platform_machine == "
       "'x86_64'",
       R"(pytorch-triton==3.2.0+git4b3bb1f8; platform_system == "Linux" and platform_machine == "x86_64")"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.input);
    const auto requirement = Requirement::parse(c.input);
    REQUIRE(requirement.has_value());
    CHECK(requirement->str() == c.expected);
  }
}

TEST_CASE("Requirement::parse splits name, extras, specifier, URL and marker",
          "[pep][requirement]") {
  struct Case {
    std::string_view input;
    std::string_view name;
    std::vector<std::string> extras;
    std::string_view specifier;
    std::optional<std::string> url;
    std::optional<std::string> marker;
  };
  const std::vector<Case> cases = {
      {"Typing_Extensions>=4.10.0", "Typing_Extensions", {}, ">=4.10.0", {}, {}},
      {"torch (==2.6.0+cu126)", "torch", {}, "==2.6.0+cu126", {}, {}},
      {"cuda-toolkit[nvrtc, cublas,cublas]==13.0.2",
       "cuda-toolkit",
       {"cublas", "nvrtc"},
       "==13.0.2",
       {},
       {}},
      {"triton==3.2.0; platform_system == 'Linux' and platform_machine == 'x86_64'",
       "triton",
       {},
       "==3.2.0",
       {},
       R"(platform_system == "Linux" and platform_machine == "x86_64")"},
      {"foo @ https://example.com/foo.whl ; extra == 'X_Y'",
       "foo",
       {},
       "",
       "https://example.com/foo.whl",
       R"(extra == "x-y")"},
      {"foo@https://example.com/a;b", "foo", {}, "", "https://example.com/a;b", {}},
      {"setuptools; python_version >= \"3.12\"",
       "setuptools",
       {},
       "",
       {},
       R"(python_version >= "3.12")"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.input);
    const auto r = Requirement::parse(c.input);
    REQUIRE(r.has_value());
    CHECK(r->name == c.name);
    CHECK(r->extras == c.extras);
    CHECK(r->specifier.str() == c.specifier);
    CHECK(r->url == c.url);
    REQUIRE(r->marker.has_value() == c.marker.has_value());
    if (c.marker) CHECK(r->marker->str() == *c.marker);
  }
}

TEST_CASE("Requirement::parse rejects what packaging rejects", "[pep][requirement]") {
  struct Case {
    std::string_view input;
    std::string_view message;
  };
  const std::vector<Case> cases = {
      {"", "column 1: expected a package name at the start, found end of input"},
      {"==1.0", "column 1: expected a package name at the start, found '==1.0'"},
      {"-foo", "column 1: expected a package name at the start, found '-foo'"},
      {"foo (>=1.0", "column 11: expected ')' to close the '(' at column 5, found end of input"},
      {"foo>=1.0 os_name",
       "column 10: expected end or ';' after the version specifier, found 'os_name'"},
      {"foo>=1.0,<=2.0.*",
       "column 15: expected end or ';' after the version specifier, found '.*'"},
      {"foo ~=1",
       "column 5: expected end or ';' after the name (no valid version specifier), found '~=1'"},
      {"foo[a]b",
       "column 7: expected end or ';' after the name (no valid version specifier), found 'b'"},
      {"foo[", "column 5: expected ']' to close the '[' at column 4, found end of input"},
      {"foo[a b]", "column 7: expected comma between extra names, found 'b]'"},
      {"foo[a,]", "column 7: expected extra name after comma, found ']'"},
      {"foo ;", "column 6: expected a marker variable or quoted string, found end of input"},
      {"foo>=1.0;python_version",
       "column 24: expected a marker operator, one of <=, <, !=, ==, >=, >, ~=, ===, in, not "
       "in, found end of input"},
      {"foo>=1.0; python_version>'3'garbage",
       "column 29: expected end of dependency specifier, found 'garbage'"},
      {"foo @ ", "column 7: expected a URL after '@', found end of input"},
      {"foo @ http://x os_name",
       "column 16: expected end or ';' after the URL and whitespace, found 'os_name'"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.input);
    const auto r = Requirement::parse(c.input);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().input == c.input);
    CHECK(r.error().message == c.message);
  }
}

TEST_CASE("Requirement::parse rejects specifiers SpecifierSet rejects", "[pep][requirement]") {
  // The SPECIFIER token lets `===` take commas; SpecifierSet then splits them.
  const auto r = Requirement::parse("foo===1,2");
  REQUIRE_FALSE(r.has_value());
  CHECK_THAT(r.error().message, Catch::Contains("'2'"));
}

TEST_CASE("Requirement::parse accepts the URLs packaging accepts", "[pep][requirement]") {
  // packaging 23.0: a file: URL must round-trip through urlparse/urlunparse;
  // any other needs a scheme and a host; urlsplit checks bracketed hosts.
  const std::vector<std::string_view> inputs = {
      "foo @ file:///x",
      "foo @ file://host/x",
      "foo @ "
      "https://download.pytorch.org/whl/cu126/torch-2.6.0%2Bcu126-cp312-cp312-linux_x86_64.whl",
      "foo @ git+https://github.com/a/b.git@v1",
      "foo @ http://[::1]:8080/x",
      "foo @ http://[::1%eth0]/",
      "foo @ http://[::ffff:1.2.3.4]/",
      "foo @ http://[1:2:3:4:5:6:7:8]/",
      "foo @ http://[v1.x]/x",
  };
  for (std::string_view input : inputs) {
    CAPTURE(input);
    const auto r = Requirement::parse(input);
    REQUIRE(r.has_value());
    CHECK(r->url.has_value());
  }
}

TEST_CASE("Requirement::parse rejects the URLs packaging rejects", "[pep][requirement]") {
  struct Case {
    std::string_view input;
    std::string_view message_part;
  };
  const std::vector<Case> cases = {
      {"foo @ FILE:///x", "must be written as 'file:///x'"},
      {"foo @ file:x", "must be written as 'file:///x'"},
      {"foo @ file:/x", "must be written as 'file:///x'"},
      {"foo @ file:////x", "must be written as 'file://x'"},
      {"foo @ file:///x?", "must be written as 'file:///x'"},
      {"foo @ http:x", "needs a scheme and a host"},
      {"foo @ x", "needs a scheme and a host"},
      {"foo @ //host/x", "needs a scheme and a host"},
      {"foo @ http://[x/", "unbalanced"},
      {"foo @ http://[127.0.0.1]/", "IPv4"},
      {"foo @ http://[::1:]/", "invalid IPv6 host"},
      {"foo @ http://[1:2:3:4:5:6:7]/", "invalid IPv6 host"},
      {"foo @ http://user@[::1]x/", "not a port"},
      {"foo @ http://[v1.]/", "IPvFuture"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.input);
    const auto r = Requirement::parse(c.input);
    REQUIRE_FALSE(r.has_value());
    CHECK_THAT(r.error().message,
               Catch::StartsWith("invalid URL '") && Catch::Contains(std::string(c.message_part)));
  }
}

TEST_CASE("Requirement::canonical_name is the PEP 503 name", "[pep][requirement]") {
  struct Case {
    std::string_view input;
    std::string_view expected;
  };
  const std::vector<Case> cases = {
      {"Typing_Extensions>=4.10.0", "typing-extensions"},
      {"nvidia-cuda-nvrtc-cu12==12.6.77", "nvidia-cuda-nvrtc-cu12"},
      {"Jinja2", "jinja2"},
      {"zope.interface", "zope-interface"},
      {"a__b--c..d", "a-b-c-d"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.input);
    const auto r = Requirement::parse(c.input);
    REQUIRE(r.has_value());
    CHECK(r->canonical_name() == c.expected);
  }
}

TEST_CASE("Requirement::applies_to evaluates the marker for no extra and each extra",
          "[pep][requirement]") {
  struct Case {
    std::string_view input;
    std::string_view python;
    std::string_view machine;
    std::vector<std::string> extras;
    bool expected;
  };
  const std::string_view nvidia =
      R"(nvidia-cublas-cu12==12.6.4.1; platform_system == "Linux" and platform_machine == "x86_64")";
  const std::vector<Case> cases = {
      {"filelock", "3.11", "aarch64", {}, true},
      {nvidia, "3.12", "x86_64", {}, true},
      {nvidia, "3.11", "aarch64", {}, false},
      {R"(setuptools; python_version >= "3.12")", "3.12", "x86_64", {}, true},
      {R"(setuptools; python_version >= "3.12")", "3.11", "x86_64", {}, false},
      {R"(setuptools; python_version >= "3.12")", "3.12.4", "aarch64", {}, true},
      {R"(opt-einsum>=3.3; extra == "opt-einsum")", "3.12", "x86_64", {}, false},
      {R"(opt-einsum>=3.3; extra == "opt-einsum")", "3.12", "x86_64", {"optree"}, false},
      {R"(opt-einsum>=3.3; extra == "opt-einsum")",
       "3.12",
       "x86_64",
       {"optree", "opt-einsum"},
       true},
      {R"(opt-einsum>=3.3; extra == "opt-einsum")", "3.12", "x86_64", {"Opt_Einsum"}, true},
      {R"(foo; extra == "x" or python_version < "3.12")", "3.11", "x86_64", {}, true},
      // packaging would raise; a marker that cannot be evaluated does not apply.
      {R"(foo; python_version ~= "3")", "3.12", "x86_64", {}, false},
  };
  for (const auto& c : cases) {
    CAPTURE(c.input, c.python, c.machine, c.extras);
    const auto r = Requirement::parse(c.input);
    REQUIRE(r.has_value());
    CHECK(r->applies_to(MarkerEnvironment::linux_cpython(c.python, c.machine), c.extras) ==
          c.expected);
  }
}
