// Dynamic string tokens (ld.so(8), "Dynamic string tokens"; glibc
// elf/dl-load.c is_dst / _dl_dst_substitute).
#include <optional>
#include <string>

#include <catch2/catch.hpp>

#include "elf/loader.hpp"

namespace elf = wheelmod::elf;

TEST_CASE("$ORIGIN, $LIB and $PLATFORM expand in both spellings", "[elf][loader][dst]") {
  const elf::DstValues values{"/opt/app/bin", "lib/x86_64-linux-gnu", "x86_64"};
  struct Case {
    const char* input;
    const char* expected;
  };
  const Case cases[] = {
      {"$ORIGIN/../lib", "/opt/app/bin/../lib"},
      {"${ORIGIN}/../lib", "/opt/app/bin/../lib"},
      {"/usr/$LIB", "/usr/lib/x86_64-linux-gnu"},
      {"/usr/${LIB}/x", "/usr/lib/x86_64-linux-gnu/x"},
      {"/p/$PLATFORM/lib", "/p/x86_64/lib"},
      {"/p/${PLATFORM}", "/p/x86_64"},
      {"$ORIGIN:$ORIGIN", "/opt/app/bin:/opt/app/bin"},
      {"$ORIGIN/$LIB/$PLATFORM", "/opt/app/bin/lib/x86_64-linux-gnu/x86_64"},
      // Not tokens: kept as written.
      {"/no/tokens", "/no/tokens"},
      {"$ORIGINAL/x", "$ORIGINAL/x"},   // more identifier characters follow
      {"$ORIGIN_x", "$ORIGIN_x"},       // '_' continues an identifier too
      {"${ORIGIN/x", "${ORIGIN/x"},     // no closing brace
      {"$HOME/lib", "$HOME/lib"},       // unknown name
      {"${LIBRARY}", "${LIBRARY}"},     // a longer name in braces
      {"lib$", "lib$"},                 // '$' at the end
      {"$$ORIGIN", "$/opt/app/bin"},    // the second '$' starts the token
      {"$ORIGIN.d", "/opt/app/bin.d"},  // '.' ends the name
      {"$LIB64", "$LIB64"},             // digits continue an identifier
  };
  for (const auto& c : cases) {
    CAPTURE(c.input);
    const auto expanded = elf::expand_dst(c.input, values);
    REQUIRE(expanded.has_value());
    CHECK(*expanded == c.expected);
  }
}

TEST_CASE("a token without a value makes the whole entry unusable", "[elf][loader][dst]") {
  const elf::DstValues no_platform{"/o", "lib", std::nullopt};
  CHECK_FALSE(elf::expand_dst("/p/$PLATFORM/lib", no_platform).has_value());
  CHECK_FALSE(elf::expand_dst("${PLATFORM}", no_platform).has_value());
  CHECK(elf::expand_dst("/p/$PLATFORMX", no_platform) ==
        std::optional<std::string>("/p/$PLATFORMX"));
  const elf::DstValues no_origin{std::nullopt, "lib", "x86_64"};
  CHECK_FALSE(elf::expand_dst("$ORIGIN/lib", no_origin).has_value());
  CHECK(elf::expand_dst("/usr/$LIB", no_origin) == std::optional<std::string>("/usr/lib"));
}
