// PEP 440 versions and specifiers. Properties: the normalised form parses
// back to an equal version with the same text (packaging's str() is a
// fixed point); a specifier set's text parses back to the same set, and
// membership does not depend on which of the two spellings was parsed.
#include "fuzz_support.hpp"
#include "pep/specifier.hpp"
#include "pep/version.hpp"

using namespace wheelmod;

namespace {

void check_version(std::string_view text) {
  const auto version = pep::Version::parse(text);
  if (!version) return;
  const auto normal = version->str();
  const auto again = pep::Version::parse(normal);
  WHEELMOD_FUZZ_CHECK(again.has_value(), "input: " + std::string(text) + "\nnormal: " + normal);
  WHEELMOD_FUZZ_CHECK(
      *again == *version && again->str() == normal,
      "input: " + std::string(text) + "\nnormal: " + normal + "\nagain: " + again->str());
  WHEELMOD_FUZZ_CHECK(version->public_version() <= *version || !version->has_local(), normal);
  (void)version->base_version().str();
  (void)pep::canonicalize_version_text(text);
}

void check_specifier(std::string_view text) {
  const auto set = pep::SpecifierSet::parse(text);
  if (!set) return;
  const auto normal = set->str();
  const auto again = pep::SpecifierSet::parse(normal);
  WHEELMOD_FUZZ_CHECK(again.has_value() && again->str() == normal,
                      "input: " + std::string(text) + "\nnormal: " + normal);
  for (const char* probe : {"0", "1.0", "2.7.1+cu126", "2.8.0rc1", "1!0.1.post2.dev3", "3.12"}) {
    const auto version = pep::Version::parse(probe);
    for (const auto pre : {pep::Prereleases::implied, pep::Prereleases::allow})
      WHEELMOD_FUZZ_CHECK(set->contains(*version, pre) == again->contains(*version, pre),
                          "spec: " + normal + "\nversion: " + probe);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = fuzz::as_text(data, size);
  check_version(text);
  check_specifier(text);
  // The clause after an operator: "==" + text exercises the wildcard and
  // local-label paths that a bare version never reaches.
  check_specifier("==" + std::string(text));
  check_specifier("~=" + std::string(text));
  return 0;
}
