// Unwraps a parser's result in a test: the value, or the test fails with
// the parser's own error message (which says what was wrong).
#pragma once

#include <string_view>
#include <utility>

#include <catch2/catch.hpp>

#include "pep/parse_error.hpp"

namespace wheelmod::test {

template <class T>
T require_parsed(pep::Parsed<T> parsed, std::string_view what) {
  if (!parsed) FAIL(parsed.error().describe(what));
  return std::move(*parsed);
}

}  // namespace wheelmod::test
