// The nesting bound checked before JSON reaches a parser (core/json_depth.hpp).
#include <string>

#include <catch2/catch.hpp>

#include "core/json_depth.hpp"

using wheelmod::json_too_deep;

TEST_CASE("JSON nesting is bounded before parsing", "[core][json]") {
  const auto nested = [](std::size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
  };
  CHECK_FALSE(json_too_deep(nested(64)));
  CHECK(json_too_deep(nested(65)) == 64U);  // the bracket opening level 65
  CHECK(json_too_deep(nested(200000)) == 64U);
  CHECK_FALSE(json_too_deep("{\"a\": [1, {\"b\": []}]}", 4));
  CHECK(json_too_deep("{\"a\": [1, {\"b\": []}]}", 3) == 16U);
  // Brackets inside strings, escaped quotes included, do not count.
  CHECK_FALSE(json_too_deep("{\"k\": \"[[[[[\\\"[[[[\"}", 1));
  CHECK_FALSE(json_too_deep("[\"\\\\\"]", 1));  // an escaped backslash ends before the quote
  // Closing brackets never make the depth negative (malformed text is the parser's to report).
  CHECK_FALSE(json_too_deep("]]]][", 1));
}
