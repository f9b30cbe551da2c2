// RECORD files (CSV rows path,hash,size). Property: what parses, written
// back the way the wheel tool writes it, parses to the same entries.
#include "fuzz_support.hpp"
#include "pep/record.hpp"

using namespace wheelmod;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = fuzz::as_text(data, size);
  (void)pep::urlsafe_b64decode(text);
  const auto entries = pep::parse_record(text);
  if (!entries) return 0;
  const auto written = pep::write_record(*entries);
  const auto again = pep::parse_record(written);
  WHEELMOD_FUZZ_CHECK(again.has_value() && *again == *entries, "written:\n" + written);
  return 0;
}
