// Private to src/elf: growing a shared library's dynamic string table
// without patchelf. The whole old table, the new search path and a new
// program header table go into a region appended at the end of the file and
// mapped by one new read-only PT_LOAD; DT_STRTAB / DT_STRSZ and the .dynstr
// section header then point there. Nothing that was in the file moves, so
// every string index (symbol names, version records, DT_NEEDED) stays
// valid, and the cost is a few pages plus a copy of the old table.
// glibc's ld.so reads the program headers wherever e_phoff says (elf/
// dl-load.c, _dl_map_object_from_fd: pread(2) when they lie past the first
// block it read) and takes l_phdr, which dl_iterate_phdr hands to unwinders,
// from the PT_LOAD that covers them (elf/dl-map-segments.h,
// _dl_postprocess_loadcmd); musl's map_library does the same. Hence the
// table inside the new segment.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>

#include "elf_image.hpp"

namespace wheelmod::elf::detail {

/// Where the grown table goes, decided from the headers alone.
struct GrowthPlan {
  std::uint64_t region_offset = 0;   // file offset of the appended region (page-aligned)
  std::uint64_t region_address = 0;  // its p_vaddr: offset + the old image's end
  std::uint64_t region_align = 0;    // the new PT_LOAD's p_align
  std::size_t insert_at = 0;         // index of the new PT_LOAD in the new program header table
  std::uint64_t strtab_address = 0;  // the new DT_STRTAB
  std::uint64_t strtab_size = 0;     // the new DT_STRSZ
  std::uint64_t string_index = 0;    // of the new search path in the new table
};

/// The plan for appending a `value_size`-byte string to `image`'s dynamic
/// string table when the edited dynamic array holds `dynamic_entries`
/// entries (its DT_NULL not counted). nullopt when the grower does not
/// apply and the caller must use patchelf: not a shared library (ET_DYN
/// without PT_INTERP), no room for the entries and a DT_NULL in PT_DYNAMIC,
/// or a layout it does not know (PN_XNUM program headers, unsorted or
/// oddly aligned PT_LOADs, a table not ending in NUL, addresses past ELF32's
/// range). Reads headers only; throws IoError when DT_STRTAB is broken.
[[nodiscard]] std::optional<GrowthPlan> plan_growth(const ElfImage& image, std::size_t value_size,
                                                    std::size_t dynamic_entries);

/// Writes the planned region into `fd`, a byte-for-byte copy of image's
/// file named `file`, and points the ELF header's program header table and
/// the .dynstr section header (when there is one) at it. The dynamic array
/// is left to the caller. Throws IoError naming `file` when writing fails.
void append_grown_strtab(const ElfImage& image, const GrowthPlan& plan, const std::string& value,
                         int fd, const std::filesystem::path& file);

/// pwrite(2) of all of `bytes` at `offset`; throws IoError naming `file`.
void write_at(int fd, std::span<const unsigned char> bytes, std::uint64_t offset,
              const std::filesystem::path& file);

}  // namespace wheelmod::elf::detail
