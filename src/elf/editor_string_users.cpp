#include "editor_string_users.hpp"

#include <elf.h>
#include <gelf.h>

#include <algorithm>
#include <array>
#include <vector>

namespace wheelmod::elf::detail {

namespace {

// Solaris' DT_USED, a string index like DT_NEEDED; absent from glibc's <elf.h>.
constexpr std::int64_t k_dt_used = 0x7ffffffe;
// A bound on version records walked, against cycles in corrupt vn_next links.
constexpr std::uint64_t k_max_records = 1U << 16;
constexpr std::uint64_t k_symbols_per_read = 4096;
// Real hash chains hold a handful of symbols; a corrupt one must not run on.
constexpr std::uint64_t k_max_chain = 1U << 20;

bool is_string_tag(std::int64_t tag) {
  switch (tag) {
    case DT_NEEDED:
    case DT_SONAME:
    case DT_RPATH:
    case DT_RUNPATH:
    case DT_AUXILIARY:
    case DT_FILTER:
    case DT_CONFIG:
    case DT_DEPAUDIT:
    case DT_AUDIT:
    case k_dt_used:
      return true;
    default:
      return false;
  }
}

struct Range {
  std::uint64_t begin, end;
  [[nodiscard]] bool holds(std::uint64_t index) const { return index >= begin && index < end; }
};

template <std::size_t N>
std::array<unsigned char, N> read_record(const ElfImage& image, std::uint64_t offset,
                                         const char* what) {
  std::array<unsigned char, N> bytes{};
  image.read_bytes(offset, bytes, what);
  return bytes;
}

std::uint64_t field(const ElfImage& image, std::span<const unsigned char> record,
                    std::size_t offset, std::size_t size) {
  return image.decode(record.subspan(offset, size));
}

// Symbol versioning (LSB, "Symbol Versioning"): Elf_Verneed is {vn_version,
// vn_cnt: u16; vn_file, vn_aux, vn_next: u32}, Elf_Vernaux {vna_hash: u32;
// vna_flags, vna_other: u16; vna_name, vna_next: u32}, alike in ELF32/64.
bool version_needs_use(const ElfImage& image, Range range) {
  const auto address = image.find(DT_VERNEED);
  const auto count = image.find(DT_VERNEEDNUM);
  if (!address || !count) return false;
  std::uint64_t offset = image.table_offset(*address, 16, "DT_VERNEED");
  for (std::uint64_t n = 0; n < std::min(*count, k_max_records); ++n) {
    const auto need = read_record<16>(image, offset, "DT_VERNEED");
    if (range.holds(field(image, need, 4, 4))) return true;
    std::uint64_t aux = offset + field(image, need, 8, 4);
    for (std::uint64_t i = 0; i < field(image, need, 2, 2); ++i) {
      const auto entry = read_record<16>(image, aux, "DT_VERNEED auxiliary entry");
      if (range.holds(field(image, entry, 8, 4))) return true;
      if (field(image, entry, 12, 4) == 0) break;
      aux += field(image, entry, 12, 4);
    }
    if (field(image, need, 12, 4) == 0) break;
    offset += field(image, need, 12, 4);
  }
  return false;
}

// Elf_Verdef is {vd_version, vd_flags, vd_ndx, vd_cnt: u16; vd_hash, vd_aux,
// vd_next: u32}, Elf_Verdaux {vda_name, vda_next: u32}.
bool version_definitions_use(const ElfImage& image, Range range) {
  const auto address = image.find(DT_VERDEF);
  const auto count = image.find(DT_VERDEFNUM);
  if (!address || !count) return false;
  std::uint64_t offset = image.table_offset(*address, 20, "DT_VERDEF");
  for (std::uint64_t n = 0; n < std::min(*count, k_max_records); ++n) {
    const auto definition = read_record<20>(image, offset, "DT_VERDEF");
    std::uint64_t aux = offset + field(image, definition, 12, 4);
    for (std::uint64_t i = 0; i < field(image, definition, 6, 2); ++i) {
      const auto entry = read_record<8>(image, aux, "DT_VERDEF auxiliary entry");
      if (range.holds(field(image, entry, 0, 4))) return true;
      if (field(image, entry, 4, 4) == 0) break;
      aux += field(image, entry, 4, 4);
    }
    if (field(image, definition, 16, 4) == 0) break;
    offset += field(image, definition, 16, 4);
  }
  return false;
}

// GNU hash (no gABI text; binutils' bfd and glibc's ld.so are the reference):
// {nbuckets, symoffset, bloom_size, bloom_shift: u32}, bloom words of the
// address size, buckets (u32), then one chain word per hashed symbol whose
// low bit marks the end of a chain. The last symbol ends the chain of the
// highest bucket value.
std::uint64_t gnu_hash_symbol_count(const ElfImage& image, std::uint64_t address) {
  const std::uint64_t table = image.table_offset(address, 16, "DT_GNU_HASH");
  const auto header = read_record<16>(image, table, "DT_GNU_HASH");
  const std::uint64_t buckets = field(image, header, 0, 4);
  const std::uint64_t first_hashed = field(image, header, 4, 4);
  const std::uint64_t buckets_offset = table + 16 + field(image, header, 8, 4) * image.word_size();
  std::uint64_t last = 0;
  std::vector<unsigned char> block;
  for (std::uint64_t done = 0; done < buckets;) {
    const std::uint64_t n = std::min<std::uint64_t>(buckets - done, 1024);
    block.resize(static_cast<std::size_t>(n * 4));
    image.read_bytes(buckets_offset + done * 4, block, "DT_GNU_HASH buckets");
    for (std::size_t i = 0; i < block.size(); i += 4)
      last = std::max(last, image.decode(std::span(block).subspan(i, 4)));
    done += n;
  }
  if (last == 0) return first_hashed;
  if (last < first_hashed) throw image.broken("DT_GNU_HASH bucket below its symoffset");
  const std::uint64_t chains = buckets_offset + buckets * 4;
  for (std::uint64_t index = last; index - last < k_max_chain; ++index) {
    if ((image.read_uint(chains + (index - first_hashed) * 4, 4, "DT_GNU_HASH chain") & 1U) != 0)
      return index + 1;
  }
  throw image.broken("a DT_GNU_HASH chain does not end");
}

std::optional<std::uint64_t> dynamic_symbol_count(const ElfImage& image) {
  // gABI "Hash Table": nchain equals the number of symbol table entries.
  // Its words are 32-bit, except on 64-bit s390 and Alpha, whose psABIs
  // made them 64-bit.
  if (const auto hash = image.find(DT_HASH)) {
    const std::size_t word = image.elf_class() == ElfClass::elf64 &&
                                     (image.machine() == EM_S390 || image.machine() == EM_ALPHA)
                                 ? 8
                                 : 4;
    return image.read_uint(image.table_offset(*hash, 2 * word, "DT_HASH") + word, word, "DT_HASH");
  }
  if (const auto gnu_hash = image.find(DT_GNU_HASH)) return gnu_hash_symbol_count(image, *gnu_hash);
  // No hash table: the section headers, when not stripped, size .dynsym.
  Elf_Scn* section = nullptr;
  while ((section = elf_nextscn(image.handle(), section)) != nullptr) {
    GElf_Shdr header{};
    if (gelf_getshdr(section, &header) != nullptr && header.sh_type == SHT_DYNSYM &&
        header.sh_entsize != 0)
      return header.sh_size / header.sh_entsize;
  }
  return std::nullopt;
}

StringUse symbols_use(const ElfImage& image, Range range) {
  const auto address = image.find(DT_SYMTAB);
  if (!address) return StringUse::unused;
  const std::uint64_t entry_size =
      image.find(DT_SYMENT).value_or(image.elf_class() == ElfClass::elf64 ? 24 : 16);
  if (entry_size < 4 || entry_size > 64)
    throw image.broken("DT_SYMENT of " + std::to_string(entry_size) + " bytes");
  const auto count = dynamic_symbol_count(image);
  if (!count) return StringUse::unknown;
  if (*count > image.file_size() / entry_size)
    throw image.broken(std::to_string(*count) + " dynamic symbols cannot fit in the file");
  const std::uint64_t table = image.table_offset(*address, *count * entry_size, "DT_SYMTAB");
  std::vector<unsigned char> block;
  for (std::uint64_t done = 0; done < *count;) {
    const std::uint64_t n = std::min(*count - done, k_symbols_per_read);
    block.resize(static_cast<std::size_t>(n * entry_size));
    image.read_bytes(table + done * entry_size, block, "DT_SYMTAB");
    // st_name is the first u32 of Elf32_Sym and Elf64_Sym alike.
    for (std::size_t i = 0; i < block.size(); i += static_cast<std::size_t>(entry_size))
      if (range.holds(image.decode(std::span(block).subspan(i, 4)))) return StringUse::used;
    done += n;
  }
  return StringUse::unused;
}

}  // namespace

StringUse string_range_use(const ElfImage& image, std::uint64_t begin, std::uint64_t end,
                           std::span<const std::size_t> ignored) {
  const Range range{begin, end};
  if (range.begin >= range.end) return StringUse::unused;
  const auto& entries = image.dynamic();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (std::find(ignored.begin(), ignored.end(), i) != ignored.end()) continue;
    if (is_string_tag(entries[i].tag) && range.holds(entries[i].value)) return StringUse::used;
  }
  if (version_needs_use(image, range) || version_definitions_use(image, range))
    return StringUse::used;
  return symbols_use(image, range);
}

}  // namespace wheelmod::elf::detail
