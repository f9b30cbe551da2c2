// The zip structures read from byte ranges (the end of central directory
// and its ZIP64 form, central directory headers, local headers) and entry
// data inflated with its size and CRC-32 checked. Properties: a located
// central directory lies inside the archive; no entry inflates to more
// than its declared size.
#include "fuzz_support.hpp"
#include "wheel/zip_directory.hpp"

using namespace wheelmod;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  if (const auto location = wheel::find_central_directory(bytes, size)) {
    WHEELMOD_FUZZ_CHECK(location->offset <= size && location->size <= size - location->offset,
                        "central directory at " + std::to_string(location->offset) + "+" +
                            std::to_string(location->size) + " in " + std::to_string(size) +
                            " bytes");
    const auto directory = bytes.subspan(static_cast<std::size_t>(location->offset),
                                         static_cast<std::size_t>(location->size));
    if (const auto entries = wheel::parse_central_directory(directory, location->entries)) {
      for (const auto& entry : *entries) {
        if (entry.local_header_offset >= size) continue;
        const auto local = bytes.subspan(static_cast<std::size_t>(entry.local_header_offset));
        const auto header = wheel::local_header_length(local);
        if (!header || *header > local.size()) continue;
        const auto rest = local.subspan(static_cast<std::size_t>(*header));
        const auto stored = rest.subspan(
            0, std::min<std::size_t>(rest.size(), static_cast<std::size_t>(std::min<std::uint64_t>(
                                                      entry.compressed_size, rest.size()))));
        if (const auto content = wheel::extract_entry_data(entry, stored))
          WHEELMOD_FUZZ_CHECK(content->size() == entry.uncompressed_size, entry.name);
      }
    }
  }
  // The same bytes as a central directory on their own, and as a local header.
  (void)wheel::parse_central_directory(bytes, 4);
  (void)wheel::local_header_length(bytes);
  return 0;
}
