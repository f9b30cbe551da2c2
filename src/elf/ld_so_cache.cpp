// /etc/ld.so.cache as ldconfig writes it and ld.so reads it (glibc 2.36,
// sysdeps/generic/dl-cache.h and elf/dl-cache.c). Layout, little-endian
// on the hosts we serve:
//   new format: "glibc-ld.so.cache" "1.1", nlibs, len_strings, flags
//     (byte: 2 = little-endian), 3 pad, extension_offset, 3 unused = 48
//     bytes; then nlibs entries of 24 bytes {int32 flags, uint32 key,
//     uint32 value, uint32 osversion, uint64 hwcap}; key/value are string
//     offsets from the start of this header.
//   compat format: "ld.so-1.7.0" (pad to 12), nlibs, nlibs 12-byte old
//     entries, then the new format at the next 8-byte boundary.
//   extension directory (offsets from the start of the file): magic
//     0xeaa42174, count, {tag, flags, offset, size}...; tag 1 lists the
//     glibc-hwcaps subdirectory names as string offsets (new-header based)
//     that entries with hwcap bit 62 set index with their low 32 bits;
//     tag 0 is the text naming the ldconfig that wrote the file.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "elf/loader.hpp"

namespace wheelmod::elf {

namespace {

constexpr std::string_view k_old_magic = "ld.so-1.7.0";
constexpr std::string_view k_new_magic = "glibc-ld.so.cache1.1";
constexpr std::size_t k_old_header_size = 16;
constexpr std::size_t k_old_entry_size = 12;
constexpr std::size_t k_new_header_size = 48;
constexpr std::size_t k_new_entry_size = 24;
constexpr std::uint8_t k_endian_big = 3;
constexpr std::uint32_t k_extension_magic = 0xeaa42174;
constexpr std::uint32_t k_tag_generator = 0;
constexpr std::uint32_t k_tag_glibc_hwcaps = 1;
constexpr std::uint64_t k_hwcap_extension = std::uint64_t{1} << 62;

// ld.so's _DL_CACHE_DEFAULT_ID per ABI (sysdeps/.../dl-cache.h):
// FLAG_ELF_LIBC6 (3) | the ABI's "required" bits.
constexpr std::int32_t k_flag_elf = 0x0001;
constexpr std::int32_t k_flag_elf_libc6 = 0x0003;
constexpr std::uint16_t k_em_386 = 3;
constexpr std::uint16_t k_em_ppc64 = 21;
constexpr std::uint16_t k_em_s390 = 22;
constexpr std::uint16_t k_em_x86_64 = 62;
constexpr std::uint16_t k_em_aarch64 = 183;

std::optional<std::int32_t> expected_flags(ElfClass elf_class, std::uint16_t machine) {
  const bool is64 = elf_class == ElfClass::elf64;
  if (machine == k_em_x86_64) return k_flag_elf_libc6 | (is64 ? 0x0300 : 0x0800);
  if (machine == k_em_386 && !is64) return k_flag_elf_libc6;
  if (machine == k_em_aarch64 && is64) return k_flag_elf_libc6 | 0x0a00;
  if (machine == k_em_ppc64 && is64) return k_flag_elf_libc6 | 0x0500;
  if (machine == k_em_s390 && is64) return k_flag_elf_libc6 | 0x0400;
  return std::nullopt;
}

// Bounds-checked little-endian reads; every offset comes from the file.
class Bytes {
 public:
  explicit Bytes(std::span<const std::byte> bytes) : m_bytes(bytes) {}
  [[nodiscard]] std::size_t size() const { return m_bytes.size(); }
  [[nodiscard]] bool has(std::size_t offset, std::size_t length) const {
    return offset <= m_bytes.size() && length <= m_bytes.size() - offset;
  }
  [[nodiscard]] std::uint64_t number(std::size_t offset, std::size_t width) const {
    std::uint64_t value = 0;
    for (std::size_t i = width; i-- > 0;)
      value = (value << 8) | std::to_integer<std::uint64_t>(m_bytes[offset + i]);
    return value;
  }
  [[nodiscard]] std::uint32_t u32(std::size_t offset) const {
    return static_cast<std::uint32_t>(number(offset, 4));
  }
  [[nodiscard]] std::string_view text(std::size_t offset, std::size_t length) const {
    return {reinterpret_cast<const char*>(m_bytes.data()) + offset, length};
  }
  /// The NUL-terminated string at `offset`; nullopt when it runs off the end.
  [[nodiscard]] std::optional<std::string> c_string(std::size_t offset) const {
    if (offset >= m_bytes.size()) return std::nullopt;
    const auto rest = text(offset, m_bytes.size() - offset);
    const auto end = rest.find('\0');
    if (end == std::string_view::npos) return std::nullopt;
    return std::string(rest.substr(0, end));
  }

 private:
  std::span<const std::byte> m_bytes;
};

std::string at(std::size_t offset) { return " (at byte " + std::to_string(offset) + ")"; }

struct Extensions {
  std::vector<std::string> glibc_hwcaps;  // indexed by entries' hwcap low bits
  std::string generator;
};

// The extension directory's sections that matter here.
std::expected<Extensions, std::string> read_extensions(const Bytes& bytes, std::size_t header,
                                                       std::uint32_t directory) {
  Extensions extensions;
  if (directory == 0) return extensions;
  if (!bytes.has(directory, 8) || bytes.u32(directory) != k_extension_magic)
    return std::unexpected("no extension directory where the header points" + at(directory));
  const std::uint32_t count = bytes.u32(directory + 4);
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::size_t section = directory + 8 + std::size_t{i} * 16;
    if (!bytes.has(section, 16)) return std::unexpected("truncated extension" + at(section));
    const std::uint32_t tag = bytes.u32(section);
    const std::size_t offset = bytes.u32(section + 8);
    const std::size_t size = bytes.u32(section + 12);
    if (!bytes.has(offset, size))
      return std::unexpected("extension outside the file" + at(section));
    if (tag == k_tag_generator) {
      extensions.generator = std::string(bytes.text(offset, size));
      while (!extensions.generator.empty() && extensions.generator.back() == '\0')
        extensions.generator.pop_back();
      continue;
    }
    if (tag != k_tag_glibc_hwcaps) continue;
    if (size % 4 != 0) return std::unexpected("glibc-hwcaps section of odd size" + at(section));
    for (std::size_t item = offset; item < offset + size; item += 4) {
      auto name = bytes.c_string(header + bytes.u32(item));
      if (!name) return std::unexpected("glibc-hwcaps name outside the file" + at(item));
      extensions.glibc_hwcaps.push_back(std::move(*name));
    }
  }
  return extensions;
}

}  // namespace

std::expected<LdSoCache, std::string> parse_ld_so_cache(std::span<const std::byte> raw) {
  const Bytes bytes(raw);
  std::size_t header = 0;
  if (bytes.has(0, k_old_header_size) && bytes.text(0, k_old_magic.size()) == k_old_magic) {
    const std::size_t old_entries = bytes.u32(12);
    header = k_old_header_size + old_entries * k_old_entry_size;
    header = (header + 7) / 8 * 8;  // ALIGN_CACHE: the new part is 8-byte aligned
  }
  if (!bytes.has(header, k_new_header_size) ||
      bytes.text(header, k_new_magic.size()) != k_new_magic) {
    if (header == 0)
      return std::unexpected("not an ld.so cache: no \"glibc-ld.so.cache1.1\" magic");
    return std::unexpected("old-format cache without the new format after it" + at(header));
  }
  if (bytes.number(header + 28, 1) == k_endian_big)
    return std::unexpected("cache written for a big-endian host");
  const std::size_t count = bytes.u32(header + 20);
  if (!bytes.has(header + k_new_header_size, count * k_new_entry_size))
    return std::unexpected(std::to_string(count) + " entries do not fit in the file");
  auto extensions = read_extensions(bytes, header, bytes.u32(header + 32));
  if (!extensions) return std::unexpected(extensions.error());
  const auto& hwcaps = extensions->glibc_hwcaps;

  LdSoCache cache;
  cache.generator = extensions->generator;
  cache.entries.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t entry = header + k_new_header_size + i * k_new_entry_size;
    LdSoCacheEntry out;
    out.flags = static_cast<std::int32_t>(bytes.u32(entry));
    auto name = bytes.c_string(header + bytes.u32(entry + 4));
    auto path = bytes.c_string(header + bytes.u32(entry + 8));
    if (!name || !path)
      return std::unexpected("entry " + std::to_string(i) + " points outside the file" + at(entry));
    out.name = std::move(*name);
    out.path = std::move(*path);
    out.hwcap = bytes.number(entry + 16, 8);
    if ((out.hwcap >> 32) == (k_hwcap_extension >> 32)) {
      const auto index = static_cast<std::uint32_t>(out.hwcap);
      if (index >= hwcaps.size())
        return std::unexpected("entry " + std::to_string(i) + " names glibc-hwcaps subdirectory #" +
                               std::to_string(index) + ", which the file does not list");
      out.glibc_hwcaps = hwcaps[index];
    }
    cache.entries.push_back(std::move(out));
  }
  return cache;
}

LdSoCache read_ld_so_cache(const std::filesystem::path& file) {
  const auto text = read_file(file);
  auto parsed = parse_ld_so_cache(std::as_bytes(std::span(text.data(), text.size())));
  if (!parsed)
    throw IoError(file.string(), parsed.error(),
                  "regenerate it with ldconfig, or check without the cache");
  return std::move(*parsed);
}

// glibc 2.36 elf/dl-cache.c search_cache: entries of one name are sorted
// with the glibc-hwcaps ones first; the active one of highest priority
// wins, else the first entry without hwcap bits whose flags fit. Legacy
// hwcap bits (pre-2.33 subdirectory entries) are not matched here.
std::optional<std::string> LdSoCache::lookup(std::string_view name, ElfClass elf_class,
                                             std::uint16_t machine,
                                             std::span<const std::string> glibc_hwcaps) const {
  const auto wanted = expected_flags(elf_class, machine);
  if (!wanted) return std::nullopt;
  // i386's generic check also takes plain "ELF" entries, after libc6 ones.
  const bool generic_too = *wanted == k_flag_elf_libc6;
  const LdSoCacheEntry* best_named = nullptr;
  std::size_t best_rank = glibc_hwcaps.size();
  const LdSoCacheEntry* fallback = nullptr;
  for (const auto& entry : entries) {
    if (entry.name != name) continue;
    const bool exact = entry.flags == *wanted;
    if (!exact && !(generic_too && entry.flags == k_flag_elf)) continue;
    if (entry.glibc_hwcaps) {
      const auto found = std::find(glibc_hwcaps.begin(), glibc_hwcaps.end(), *entry.glibc_hwcaps);
      const auto rank = static_cast<std::size_t>(found - glibc_hwcaps.begin());
      if (rank < best_rank) {
        best_rank = rank;
        best_named = &entry;
      }
      continue;
    }
    if (entry.hwcap != 0) continue;
    if (exact) {
      if (best_named == nullptr) return entry.path;
      break;
    }
    if (fallback == nullptr) fallback = &entry;
  }
  if (best_named != nullptr) return best_named->path;
  if (fallback != nullptr) return fallback->path;
  return std::nullopt;
}

}  // namespace wheelmod::elf
