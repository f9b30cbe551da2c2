// Sizes as reporters print them.
#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

#include "core/reporter.hpp"

TEST_CASE("format_bytes uses binary units with one decimal", "[core][reporter]") {
  struct Case {
    std::uint64_t bytes;
    std::string expected;
  };
  const Case cases[] = {
      {0, "0 B"},        {1023, "1023 B"},           {1024, "1.0 KiB"},
      {1536, "1.5 KiB"}, {780'400'000, "744.2 MiB"}, {3'461'384'651, "3.2 GiB"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.bytes);
    CHECK(wheelmod::format_bytes(c.bytes) == c.expected);
  }
}
