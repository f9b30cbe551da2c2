#include "elf_image.hpp"

#include <gelf.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>

#include <sys/stat.h>

namespace wheelmod::elf::detail {

namespace {

// Real dynamic arrays hold tens of entries and real SONAME / RPATH strings
// are short; the caps keep a corrupt size field from costing memory.
constexpr std::uint64_t k_max_dynamic_entries = 1U << 16;
constexpr std::size_t k_max_string = 1U << 20;
constexpr std::size_t k_max_interpreter = 4096;

std::string hex(std::uint64_t value) {
  std::array<char, 20> digits{};
  const auto end = std::to_chars(digits.data(), digits.data() + digits.size(), value, 16).ptr;
  return "0x" + std::string(digits.data(), end);
}

const char* segment_name(std::uint32_t type) {
  switch (type) {
    case PT_LOAD:
      return "PT_LOAD";
    case PT_DYNAMIC:
      return "PT_DYNAMIC";
    default:
      return "PT_INTERP";
  }
}

}  // namespace

std::string libelf_error() {
  const char* message = elf_errmsg(-1);
  return message != nullptr ? message : "unknown libelf error";
}

ElfImage::ElfImage(int fd, std::filesystem::path file) : m_fd(fd), m_file(std::move(file)) {
  static const bool s_libelf_ready = elf_version(EV_CURRENT) != EV_NONE;
  if (!s_libelf_ready) throw IoError(m_file.string(), "libelf does not support ELF version 1");
  struct stat status {};
  if (::fstat(fd, &status) != 0)
    throw IoError(m_file.string(), std::string("cannot stat: ") + std::strerror(errno));
  m_file_size = static_cast<std::uint64_t>(status.st_size);

  // ELF_C_READ makes libelf pread(2) what is asked for instead of mapping
  // or reading the whole file.
  m_elf = elf_begin(fd, ELF_C_READ, nullptr);
  if (m_elf == nullptr) throw broken(libelf_error());
  try {
    if (elf_kind(m_elf) != ELF_K_ELF) throw broken("not an ELF object (truncated header?)");
    GElf_Ehdr header{};
    if (gelf_getehdr(m_elf, &header) == nullptr) throw broken("ELF header: " + libelf_error());
    const int elf_class = gelf_getclass(m_elf);
    if (elf_class != ELFCLASS32 && elf_class != ELFCLASS64)
      throw broken("unknown ELF class " + std::to_string(elf_class));
    m_class = elf_class == ELFCLASS64 ? ElfClass::elf64 : ElfClass::elf32;
    const unsigned char data = header.e_ident[EI_DATA];
    if (data != ELFDATA2LSB && data != ELFDATA2MSB)
      throw broken("unknown byte order (EI_DATA = " + std::to_string(data) + ")");
    m_little_endian = data == ELFDATA2LSB;
    m_machine = header.e_machine;
    m_type = header.e_type;
    read_program_headers();
  } catch (...) {
    elf_end(m_elf);
    throw;
  }
}

ElfImage::~ElfImage() { elf_end(m_elf); }

void ElfImage::read_program_headers() {
  GElf_Ehdr header{};
  (void)gelf_getehdr(m_elf, &header);
  // libelf's count is 0 when the table lies past the end of the file; the
  // header's own count (unless PN_XNUM sends us to section 0) tells that.
  std::size_t count = header.e_phnum;
  if (count == PN_XNUM && elf_getphdrnum(m_elf, &count) != 0)
    throw broken("program header count: " + libelf_error());
  const std::uint64_t entry_size = gelf_fsize(m_elf, ELF_T_PHDR, 1, EV_CURRENT);
  if (count > 0 && header.e_phentsize != entry_size)
    throw broken("e_phentsize is " + std::to_string(header.e_phentsize) + ", not " +
                 std::to_string(entry_size));
  const std::uint64_t table_size = entry_size * count;
  if (count > 0 && !fits(header.e_phoff, table_size, m_file_size))
    throw broken("program headers at " + hex(header.e_phoff) + " (" + std::to_string(count) +
                 " entries) end beyond the file's " + std::to_string(m_file_size) + " bytes");

  std::optional<GElf_Phdr> dynamic;
  for (std::size_t i = 0; i < count; ++i) {
    GElf_Phdr program{};
    if (gelf_getphdr(m_elf, static_cast<int>(i), &program) == nullptr)
      throw broken("program header " + std::to_string(i) + ": " + libelf_error());
    if (program.p_type != PT_LOAD && program.p_type != PT_DYNAMIC && program.p_type != PT_INTERP)
      continue;
    if (program.p_filesz > 0 && !fits(program.p_offset, program.p_filesz, m_file_size))
      throw broken(std::string(segment_name(program.p_type)) + " segment at " +
                   hex(program.p_offset) + " (+" + std::to_string(program.p_filesz) +
                   " bytes) ends beyond the file's " + std::to_string(m_file_size) + " bytes");
    m_segments.push_back({program.p_type, program.p_offset, program.p_vaddr, program.p_filesz});
    if (program.p_type == PT_DYNAMIC && !dynamic) dynamic = program;
  }
  // A program or shared object ld.so is to map needs a PT_LOAD (gABI,
  // "Program Loading"): without one (no program headers, a PN_XNUM count
  // whose section 0 says 0, a class byte that makes the table unreadable)
  // ld.so refuses it, "cannot read file data"; so must relink and check.
  const bool loadable =
      std::ranges::any_of(m_segments, [](const Segment& s) { return s.type == PT_LOAD; });
  if ((m_type == ET_DYN || m_type == ET_EXEC) && !loadable)
    throw broken("no PT_LOAD segment (" + std::to_string(count) +
                 " program headers): not a file ld.so can load");
  if (!dynamic) return;
  // objcopy --only-keep-debug leaves the program headers but empties them.
  if (dynamic->p_filesz < dynamic_entry_size())
    throw broken("PT_DYNAMIC holds no entry (a separate debug-info file?)");

  // ld.so(8) finds the dynamic array at PT_DYNAMIC's address in the loaded
  // image; an editor must change those bytes, so the file offset has to
  // agree with the PT_LOAD mapping of that address.
  const auto mapped = address_to_offset(dynamic->p_vaddr, dynamic->p_filesz);
  if (!mapped || *mapped != dynamic->p_offset)
    throw broken("PT_DYNAMIC at offset " + hex(dynamic->p_offset) + " is not where its address " +
                 hex(dynamic->p_vaddr) + " is loaded from");
  read_dynamic_array(dynamic->p_offset, dynamic->p_filesz);
}

void ElfImage::read_dynamic_array(std::uint64_t offset, std::uint64_t size) {
  const std::uint64_t slots = std::min(size / dynamic_entry_size(), k_max_dynamic_entries);
  Elf_Data* data =
      elf_getdata_rawchunk(m_elf, static_cast<int64_t>(offset),
                           static_cast<std::size_t>(slots * dynamic_entry_size()), ELF_T_DYN);
  if (data == nullptr) throw broken("dynamic array: " + libelf_error());
  for (std::uint64_t i = 0; i < slots; ++i) {
    GElf_Dyn entry{};
    if (gelf_getdyn(data, static_cast<int>(i), &entry) == nullptr)
      throw broken("dynamic entry " + std::to_string(i) + ": " + libelf_error());
    if (entry.d_tag == DT_NULL) {
      m_dynamic_offset = offset;
      return;
    }
    m_dynamic.push_back({entry.d_tag, entry.d_un.d_val});
  }
  // gABI "Dynamic Section": an entry with DT_NULL marks the end of the array.
  throw broken("the dynamic array at " + hex(offset) + " has no DT_NULL terminator");
}

std::optional<std::string> ElfImage::interpreter() const {
  const auto segment = std::find_if(m_segments.begin(), m_segments.end(),
                                    [](const Segment& s) { return s.type == PT_INTERP; });
  if (segment == m_segments.end()) return std::nullopt;
  if (segment->filesz > k_max_interpreter)
    throw broken("PT_INTERP is " + std::to_string(segment->filesz) + " bytes long");
  std::string path(static_cast<std::size_t>(segment->filesz), '\0');
  read_bytes(segment->offset, std::span(reinterpret_cast<unsigned char*>(path.data()), path.size()),
             "PT_INTERP");
  const auto end = path.find('\0');
  if (end == std::string::npos) throw broken("PT_INTERP is not NUL-terminated");
  path.resize(end);
  return path;
}

std::optional<std::uint64_t> ElfImage::find(std::int64_t tag) const {
  // The last one, as ld.so's table of dynamic entries keeps the last of a tag.
  const auto last = std::find_if(m_dynamic.rbegin(), m_dynamic.rend(),
                                 [tag](const DynEntry& entry) { return entry.tag == tag; });
  if (last == m_dynamic.rend()) return std::nullopt;
  return last->value;
}

std::optional<std::uint64_t> ElfImage::address_to_offset(std::uint64_t address,
                                                         std::uint64_t size) const {
  for (const auto& segment : m_segments) {
    if (segment.type != PT_LOAD || address < segment.vaddr) continue;
    const std::uint64_t delta = address - segment.vaddr;
    if (delta <= segment.filesz && size <= segment.filesz - delta) return segment.offset + delta;
  }
  return std::nullopt;
}

std::uint64_t ElfImage::table_offset(std::uint64_t address, std::uint64_t size,
                                     const char* tag_name) const {
  const auto offset = address_to_offset(address, size);
  if (!offset)
    throw broken(std::string(tag_name) + " (" + hex(address) + ", " + std::to_string(size) +
                 " bytes) lies in no PT_LOAD segment's file bytes");
  return *offset;
}

void ElfImage::locate_strtab() const {
  if (m_strtab_offset) return;
  const auto address = find(DT_STRTAB);
  const auto size = find(DT_STRSZ);
  if (!address || !size) throw broken("the dynamic array lacks DT_STRTAB or DT_STRSZ");
  m_strtab_offset = table_offset(*address, *size, "DT_STRTAB");
  m_strtab_size = *size;
}

std::uint64_t ElfImage::strtab_offset() const {
  locate_strtab();
  return *m_strtab_offset;
}

std::uint64_t ElfImage::strtab_size() const {
  locate_strtab();
  return m_strtab_size;
}

std::string ElfImage::read_string(std::uint64_t index) const {
  const std::uint64_t table = strtab_offset();
  if (index >= m_strtab_size)
    throw broken("string index " + std::to_string(index) + " is outside DT_STRTAB (DT_STRSZ " +
                 std::to_string(m_strtab_size) + ")");
  std::string text;
  std::array<unsigned char, 256> chunk{};
  std::uint64_t position = index;
  while (position < m_strtab_size) {
    const auto length =
        static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size(), m_strtab_size - position));
    read_bytes(table + position, std::span(chunk.data(), length), "DT_STRTAB");
    const unsigned char* begin = chunk.data();
    const unsigned char* end = std::find(begin, begin + length, '\0');
    text.append(begin, end);
    if (end != begin + length) return text;
    if (text.size() > k_max_string) break;
    position += length;
  }
  throw broken("string at index " + std::to_string(index) +
               " of DT_STRTAB has no NUL before the table's end");
}

void ElfImage::read_bytes(std::uint64_t offset, std::span<unsigned char> out,
                          const char* what) const {
  if (!fits(offset, out.size(), m_file_size))
    throw broken(std::string(what) + " at " + hex(offset) + " (+" + std::to_string(out.size()) +
                 " bytes) ends beyond the file's " + std::to_string(m_file_size) + " bytes");
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t got =
        ::pread(m_fd, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0)
      throw IoError(m_file.string(), std::string("read failed: ") + std::strerror(errno));
    if (got == 0) throw broken(std::string(what) + ": the file shrank while being read");
    done += static_cast<std::size_t>(got);
  }
}

std::uint64_t ElfImage::read_uint(std::uint64_t offset, std::size_t size, const char* what) const {
  std::array<unsigned char, 8> bytes{};
  read_bytes(offset, std::span(bytes.data(), size), what);
  return decode(std::span(bytes.data(), size));
}

std::uint64_t ElfImage::decode(std::span<const unsigned char> bytes) const {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const unsigned char byte = m_little_endian ? bytes[bytes.size() - 1 - i] : bytes[i];
    value = (value << 8U) | byte;
  }
  return value;
}

void ElfImage::encode(std::uint64_t value, std::span<unsigned char> out) const {
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto byte = static_cast<unsigned char>(value >> (8U * i));
    out[m_little_endian ? i : out.size() - 1 - i] = byte;
  }
}

IoError ElfImage::broken(const std::string& what) const {
  return IoError(m_file.string(), "broken ELF file: " + what);
}

}  // namespace wheelmod::elf::detail
