// PEP 508 requirements and environment markers. Properties: the
// normalised text parses back to the same text; evaluation never throws
// (an undefined comparison is a value, as packaging raises InvalidMarker).
//
// The round trip is only asked of inputs without single quotes,
// backslashes or control characters. str() writes every string value
// between double quotes, as packaging's str(Marker) does (Value.serialize),
// and strings are read with Python's escapes (ast.literal_eval): so a value
// holding '"' (from 'a"b') or a decoded escape ("\n") is printed as text
// that does not parse back, in packaging as here. wheelmod prints that
// text in reports only; matching packaging's output is what
// tests/differential checks.
#include "fuzz_support.hpp"
#include "pep/marker.hpp"
#include "pep/requirement.hpp"

using namespace wheelmod;

namespace {

bool round_trip_expected(std::string_view text) {
  for (const char c : text)
    if (c == '\'' || c == '\\' || static_cast<unsigned char>(c) < 0x20) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = fuzz::as_text(data, size);
  const bool round_trip = round_trip_expected(text);
  static const auto environment = pep::MarkerEnvironment::linux_cpython("3.12", "x86_64");
  if (const auto marker = pep::Marker::parse(text)) {
    const auto normal = marker->str();
    const auto first = marker->evaluate(environment, "cuda");
    const auto again = pep::Marker::parse(normal);
    if (round_trip) {
      WHEELMOD_FUZZ_CHECK(again.has_value() && again->str() == normal,
                          "input: " + std::string(text) + "\nnormal: " + normal);
      const auto second = again->evaluate(environment, "cuda");
      WHEELMOD_FUZZ_CHECK(first.has_value() == second.has_value() && (!first || *first == *second),
                          "normal: " + normal);
    }
  }
  if (const auto requirement = pep::Requirement::parse(text)) {
    const auto normal = requirement->str();
    (void)requirement->applies_to(environment, {"cuda"});
    if (!round_trip) return 0;
    const auto again = pep::Requirement::parse(normal);
    WHEELMOD_FUZZ_CHECK(again.has_value() && again->str() == normal,
                        "input: " + std::string(text) + "\nnormal: " + normal);
    WHEELMOD_FUZZ_CHECK(again->canonical_name() == requirement->canonical_name(), normal);
  }
  return 0;
}
