// Expected values were produced with python3-packaging 23.0
// (packaging.utils.canonicalize_name) and PEP 508's name regex.
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "pep/name.hpp"

using wheelmod::pep::canonicalize_name;
using wheelmod::pep::is_valid_name;

TEST_CASE("canonicalize_name follows PEP 503", "[pep][name]") {
  struct Case {
    std::string_view input;
    std::string_view expected;
  };
  const std::vector<Case> cases{
      {"Typing_Extensions", "typing-extensions"},
      {"typing-extensions", "typing-extensions"},
      {"Foo.Bar", "foo-bar"},
      {"foo__bar", "foo-bar"},
      {"foo--bar", "foo-bar"},
      {"a-_.-b", "a-b"},  // a run of mixed separators is one `-`
      {"NVIDIA_cudnn_cu12", "nvidia-cudnn-cu12"},
      {"torch", "torch"},
      {"Flask", "flask"},
      {"zope.interface", "zope-interface"},
      {"ruamel.yaml.clib", "ruamel-yaml-clib"},
      {"A", "a"},
      {"1", "1"},
      // Not valid names, but packaging normalises them all the same.
      {"-leading", "-leading"},
      {"trailing.", "trailing-"},
      {"..", "-"},
      {"", ""},
  };
  for (const Case& c : cases) {
    CAPTURE(c.input);
    CHECK(canonicalize_name(c.input) == c.expected);
  }
}

TEST_CASE("is_valid_name accepts PEP 508 names", "[pep][name]") {
  const std::vector<std::string_view> valid{
      "a", "A", "1", "torch", "typing_extensions", "zope.interface", "a-b_c.d", "a1", "a--b",
  };
  for (const std::string_view name : valid) {
    CAPTURE(name);
    CHECK(is_valid_name(name));
  }
}

TEST_CASE("is_valid_name rejects what PEP 508 does not allow", "[pep][name]") {
  const std::vector<std::string_view> invalid{
      "",    "-a",  "a-",  "_a",  "a_",          ".a",  "a.",
      "a b", "a/b", "a@b", "a+b", "caf\xc3\xa9", "a\n",  // no trailing newline, unlike re's `$`
  };
  for (const std::string_view name : invalid) {
    CAPTURE(name);
    CHECK_FALSE(is_valid_name(name));
  }
}
