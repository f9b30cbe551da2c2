// Core metadata (the METADATA file, RFC 822 headers). Property: every
// parsed Requires-Dist round-trips through its normalised text, for inputs
// without single quotes or backslashes (why: fuzz_marker.cpp; the input in
// regressions/metadata/ is such a case).
#include "fuzz_support.hpp"
#include "pep/metadata.hpp"

using namespace wheelmod;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto metadata = pep::CoreMetadata::parse(fuzz::as_text(data, size));
  if (!metadata) return 0;
  WHEELMOD_FUZZ_CHECK(!metadata->name.empty(), "a metadata without Name was accepted");
  const auto text = fuzz::as_text(data, size);
  if (text.find_first_of("'\\") != std::string_view::npos) return 0;
  for (const auto& requirement : metadata->requires_dist) {
    const auto again = pep::Requirement::parse(requirement.str());
    WHEELMOD_FUZZ_CHECK(again.has_value() && again->str() == requirement.str(), requirement.str());
  }
  (void)metadata->values("requires-dist");
  return 0;
}
