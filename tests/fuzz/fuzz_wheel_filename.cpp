// Wheel file names (PEP 427, %2B for '+') and compressed tag sets
// (PEP 425). Property: the parsed parts put back together parse again to
// the same name, version, build tag and tags.
#include "fuzz_support.hpp"
#include "pep/tags.hpp"
#include "pep/wheel_filename.hpp"

using namespace wheelmod;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = fuzz::as_text(data, size);
  if (const auto tags = pep::parse_tag_set(text))
    for (const auto& tag : *tags) (void)tag.str();
  const auto parsed = pep::WheelFilename::parse(text);
  if (!parsed) return 0;
  WHEELMOD_FUZZ_CHECK(!parsed->tags.empty(), std::string(text));
  // Rebuild with one tag per file name: each expanded tag must name a
  // wheel of the same project and version on its own.
  for (const auto& tag : parsed->tags) {
    std::string name = parsed->distribution + "-" + parsed->version.str();
    if (parsed->build) name += "-" + std::to_string(parsed->build->number) + parsed->build->suffix;
    name += "-" + tag.str() + ".whl";
    const auto again = pep::WheelFilename::parse(name);
    WHEELMOD_FUZZ_CHECK(again.has_value(), "input: " + std::string(text) + "\nrebuilt: " + name);
    WHEELMOD_FUZZ_CHECK(again->name == parsed->name && again->version == parsed->version &&
                            again->build == parsed->build && again->tags.size() == 1 &&
                            again->tags.front() == tag,
                        "input: " + std::string(text) + "\nrebuilt: " + name);
  }
  return 0;
}
