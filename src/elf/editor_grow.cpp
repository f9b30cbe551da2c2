#include "editor_grow.hpp"

#include <elf.h>
#include <gelf.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <limits>
#include <vector>

#include "core/errors.hpp"

namespace wheelmod::elf::detail {

namespace {

// The region starts on a page of its own, so that mapping it maps nothing
// of the file before it.
constexpr std::uint64_t k_page = 4096;
// The old table is copied through a buffer this big (libtorch_cpu.so's
// .dynstr is tens of MiB).
constexpr std::size_t k_copy_chunk = 1U << 20;

// Where the fields that change sit in one class's headers.
struct Layout {
  std::size_t e_phoff, e_phnum;
  std::size_t p_type, p_flags, p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align;
  std::size_t sh_addr, sh_offset, sh_size;
};
constexpr Layout k_layout64{
    offsetof(Elf64_Ehdr, e_phoff), offsetof(Elf64_Ehdr, e_phnum),  offsetof(Elf64_Phdr, p_type),
    offsetof(Elf64_Phdr, p_flags), offsetof(Elf64_Phdr, p_offset), offsetof(Elf64_Phdr, p_vaddr),
    offsetof(Elf64_Phdr, p_paddr), offsetof(Elf64_Phdr, p_filesz), offsetof(Elf64_Phdr, p_memsz),
    offsetof(Elf64_Phdr, p_align), offsetof(Elf64_Shdr, sh_addr),  offsetof(Elf64_Shdr, sh_offset),
    offsetof(Elf64_Shdr, sh_size)};
constexpr Layout k_layout32{
    offsetof(Elf32_Ehdr, e_phoff), offsetof(Elf32_Ehdr, e_phnum),  offsetof(Elf32_Phdr, p_type),
    offsetof(Elf32_Phdr, p_flags), offsetof(Elf32_Phdr, p_offset), offsetof(Elf32_Phdr, p_vaddr),
    offsetof(Elf32_Phdr, p_paddr), offsetof(Elf32_Phdr, p_filesz), offsetof(Elf32_Phdr, p_memsz),
    offsetof(Elf32_Phdr, p_align), offsetof(Elf32_Shdr, sh_addr),  offsetof(Elf32_Shdr, sh_offset),
    offsetof(Elf32_Shdr, sh_size)};

const Layout& layout(const ElfImage& image) {
  return image.elf_class() == ElfClass::elf64 ? k_layout64 : k_layout32;
}

std::uint64_t round_up(std::uint64_t value, std::uint64_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

std::vector<GElf_Phdr> program_headers(const ElfImage& image, std::size_t count) {
  std::vector<GElf_Phdr> headers(count);
  for (std::size_t i = 0; i < count; ++i)
    if (gelf_getphdr(image.handle(), static_cast<int>(i), &headers[i]) == nullptr) return {};
  return headers;
}

void put(const ElfImage& image, std::vector<unsigned char>& bytes, std::size_t at, std::size_t size,
         std::uint64_t value) {
  image.encode(value, std::span(bytes).subspan(at, size));
}

// The new program header table: the old entries, the new PT_LOAD right
// after the last old one (gABI "Program Header": PT_LOAD entries are sorted
// by p_vaddr, and the new one is the highest), and PT_PHDR, if any,
// describing the table's new place.
std::vector<unsigned char> new_program_headers(const ElfImage& image, const GElf_Ehdr& header,
                                               const GrowthPlan& plan) {
  const std::size_t entry = header.e_phentsize;
  const std::size_t word = image.word_size();
  const Layout& at = layout(image);
  std::vector<unsigned char> old(header.e_phnum * entry);
  image.read_bytes(header.e_phoff, old, "program headers");
  std::vector<unsigned char> table(old.size() + entry, 0);
  const auto split = static_cast<std::ptrdiff_t>(plan.insert_at * entry);
  std::copy(old.begin(), old.begin() + split, table.begin());
  std::copy(old.begin() + split, old.end(),
            table.begin() + split + static_cast<std::ptrdiff_t>(entry));

  const std::uint64_t table_size = table.size();
  const std::uint64_t region_size = table_size + plan.strtab_size;
  const std::size_t load = plan.insert_at * entry;
  put(image, table, load + at.p_type, 4, PT_LOAD);
  put(image, table, load + at.p_flags, 4, PF_R);
  put(image, table, load + at.p_offset, word, plan.region_offset);
  put(image, table, load + at.p_vaddr, word, plan.region_address);
  put(image, table, load + at.p_paddr, word, plan.region_address);
  put(image, table, load + at.p_filesz, word, region_size);
  put(image, table, load + at.p_memsz, word, region_size);
  put(image, table, load + at.p_align, word, plan.region_align);
  for (std::size_t i = 0; i < table.size(); i += entry) {
    if (image.decode(std::span(table).subspan(i + at.p_type, 4)) != PT_PHDR) continue;
    put(image, table, i + at.p_offset, word, plan.region_offset);
    put(image, table, i + at.p_vaddr, word, plan.region_address);
    put(image, table, i + at.p_paddr, word, plan.region_address);
    put(image, table, i + at.p_filesz, word, table_size);
    put(image, table, i + at.p_memsz, word, table_size);
  }
  return table;
}

// readelf -S, objdump and strip read .dynstr through its section header:
// it must name the new table, or they see the old bytes under the new
// size. A file without section headers, or whose .dynstr is not where
// DT_STRTAB was, has nothing to update.
void update_section_header(const ElfImage& image, const GElf_Ehdr& header, const GrowthPlan& plan,
                           int fd, const std::filesystem::path& file) {
  const std::uint64_t old_address = image.find(DT_STRTAB).value_or(0);
  const std::uint64_t old_offset = image.strtab_offset();
  if (header.e_shoff == 0 ||
      header.e_shentsize != gelf_fsize(image.handle(), ELF_T_SHDR, 1, EV_CURRENT))
    return;
  Elf_Scn* section = nullptr;
  while ((section = elf_nextscn(image.handle(), section)) != nullptr) {
    GElf_Shdr shdr{};
    if (gelf_getshdr(section, &shdr) == nullptr) return;
    if (shdr.sh_type != SHT_STRTAB || (shdr.sh_flags & SHF_ALLOC) == 0 ||
        shdr.sh_addr != old_address || shdr.sh_offset != old_offset)
      continue;
    const std::uint64_t position = header.e_shoff + elf_ndxscn(section) * header.e_shentsize;
    if (!fits(position, header.e_shentsize, image.file_size())) return;
    std::vector<unsigned char> bytes(header.e_shentsize);
    image.read_bytes(position, bytes, "section header");
    const Layout& at = layout(image);
    const std::size_t word = image.word_size();
    put(image, bytes, at.sh_addr, word, plan.strtab_address);
    put(image, bytes, at.sh_offset, word,
        plan.strtab_address - plan.region_address + plan.region_offset);
    put(image, bytes, at.sh_size, word, plan.strtab_size);
    write_at(fd, bytes, position, file);
    return;
  }
}

}  // namespace

std::optional<GrowthPlan> plan_growth(const ElfImage& image, std::size_t value_size,
                                      std::size_t dynamic_entries) {
  GElf_Ehdr header{};
  if (gelf_getehdr(image.handle(), &header) == nullptr) return std::nullopt;
  // Programs keep patchelf: Linux's binfmt_elf before 5.18 passed a program
  // AT_PHDR = the first PT_LOAD's address + e_phoff, which is wrong once the
  // table leaves the first segment, and ld.so finds the program's segments
  // through AT_PHDR.
  if (header.e_type != ET_DYN || image.interpreter()) return std::nullopt;
  // e_phnum + 1 must still fit in e_phnum (gABI: PN_XNUM moves it to
  // section 0's sh_info, which this does not write).
  if (header.e_phnum == 0 || header.e_phnum + 1U >= PN_XNUM) return std::nullopt;
  const auto headers = program_headers(image, header.e_phnum);
  if (headers.empty()) return std::nullopt;

  GrowthPlan plan;
  std::uint64_t end = 0;
  std::uint64_t align = k_page;
  std::optional<std::uint64_t> previous;
  std::optional<std::uint64_t> dynamic_size;
  for (std::size_t i = 0; i < headers.size(); ++i) {
    const auto& program = headers[i];
    if (program.p_type == PT_DYNAMIC && !dynamic_size) dynamic_size = program.p_filesz;
    if (program.p_type != PT_LOAD) continue;
    if (previous && program.p_vaddr < *previous) return std::nullopt;
    if (program.p_align > 1 && !std::has_single_bit(program.p_align)) return std::nullopt;
    if (!fits(program.p_vaddr, program.p_memsz, std::numeric_limits<std::uint64_t>::max()))
      return std::nullopt;
    previous = program.p_vaddr;
    end = std::max(end, program.p_vaddr + program.p_memsz);
    align = std::max(align, program.p_align);
    plan.insert_at = i + 1;
  }
  if (!previous || !dynamic_size) return std::nullopt;
  if ((dynamic_entries + 1) * image.dynamic_entry_size() > *dynamic_size) return std::nullopt;

  const auto strtab_address = image.find(DT_STRTAB);
  const std::uint64_t strtab_size = image.strtab_size();  // throws when broken
  const std::uint64_t strtab_offset = image.strtab_offset();
  // gABI "String Table": the last byte is a NUL; the new string follows it.
  if (!strtab_address || strtab_size == 0 ||
      image.read_uint(strtab_offset + strtab_size - 1, 1, "DT_STRTAB") != 0)
    return std::nullopt;

  const std::uint64_t limit = image.elf_class() == ElfClass::elf64
                                  ? std::numeric_limits<std::uint64_t>::max()
                                  : std::numeric_limits<std::uint32_t>::max();
  const std::uint64_t table_size = (header.e_phnum + 1U) * std::uint64_t{header.e_phentsize};
  plan.region_offset = round_up(image.file_size(), k_page);
  plan.region_align = align;
  plan.strtab_size = strtab_size + value_size + 1;
  plan.string_index = strtab_size;
  const std::uint64_t region_size = table_size + plan.strtab_size;
  if (end > limit - align || !fits(plan.region_offset, region_size, limit)) return std::nullopt;
  // p_vaddr - p_offset is the old image's end (a multiple of p_align, so
  // the two stay congruent): any file offset of the segment maps above the
  // other segments. objcopy and strip (binutils 2.40) move a program header
  // table found outside the first segment to right after the preceding
  // segments' file bytes and stretch its segment down over it; with a
  // smaller difference the stretched segment overlapped the data segment
  // and the stripped library crashed ld.so. The gap costs address space,
  // which ld.so reserves PROT_NONE, not memory.
  const std::uint64_t image_end = round_up(end, align);
  if (!fits(image_end, plan.region_offset + region_size, limit)) return std::nullopt;
  plan.region_address = image_end + plan.region_offset;
  plan.strtab_address = plan.region_address + table_size;
  return plan;
}

void append_grown_strtab(const ElfImage& image, const GrowthPlan& plan, const std::string& value,
                         int fd, const std::filesystem::path& file) {
  GElf_Ehdr header{};
  if (gelf_getehdr(image.handle(), &header) == nullptr) throw image.broken("ELF header");
  const auto table = new_program_headers(image, header, plan);
  write_at(fd, table, plan.region_offset, file);

  // The old table whole (so every index into it stays valid), then the new
  // string and its NUL.
  const std::uint64_t from = image.strtab_offset();
  const std::uint64_t to = plan.region_offset + table.size();
  const std::uint64_t old_size = plan.string_index;
  std::vector<unsigned char> buffer(
      static_cast<std::size_t>(std::min<std::uint64_t>(old_size, k_copy_chunk)));
  for (std::uint64_t done = 0; done < old_size;) {
    const auto chunk = std::span(buffer).first(
        static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), old_size - done)));
    image.read_bytes(from + done, chunk, "DT_STRTAB");
    write_at(fd, chunk, to + done, file);
    done += chunk.size();
  }
  std::vector<unsigned char> tail(value.begin(), value.end());
  tail.push_back(0);
  write_at(fd, tail, to + old_size, file);

  const Layout& at = layout(image);
  std::vector<unsigned char> fields(image.word_size());
  image.encode(plan.region_offset, fields);
  write_at(fd, fields, at.e_phoff, file);
  fields.resize(2);
  image.encode(header.e_phnum + 1U, fields);
  write_at(fd, fields, at.e_phnum, file);
  update_section_header(image, header, plan, fd, file);
}

void write_at(int fd, std::span<const unsigned char> bytes, std::uint64_t offset,
              const std::filesystem::path& file) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t wrote =
        ::pwrite(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset + done));
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote < 0)
      throw IoError(file.string(), std::string("cannot write: ") + std::strerror(errno));
    done += static_cast<std::size_t>(wrote);
  }
}

}  // namespace wheelmod::elf::detail
