// Private to src/elf: who else reads bytes of a dynamic string. Linkers
// merge string tails in .dynstr (GNU ld stores SONAME "libx.so" inside
// RPATH "/opt/libx.so"), so overwriting one string can change another.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "elf_image.hpp"

namespace wheelmod::elf::detail {

enum class StringUse {
  unused,   // nothing else starts a string inside the range
  used,     // something does
  unknown,  // the dynamic symbol table's size cannot be told
};

/// Whether any reader of the dynamic string table other than the dynamic
/// entries listed in `ignored` (indices into image.dynamic()) names a string
/// starting at an index in [begin, end): dynamic entries whose value is a
/// string index, version needs and definitions (DT_VERNEED, DT_VERDEF) and
/// dynamic symbols' names. Throws IoError when those tables are broken.
StringUse string_range_use(const ElfImage& image, std::uint64_t begin, std::uint64_t end,
                           std::span<const std::size_t> ignored);

}  // namespace wheelmod::elf::detail
