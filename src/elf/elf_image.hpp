// Private to src/elf: the parts of an ELF file that the reader and the
// search-path editor need, located and bounds-checked once. The ELF header
// and program headers come from libelf (class and byte order handled by
// gelf); strings, symbols and version records are pread(2) a few bytes at a
// time, so a 600 MB library costs kilobytes of memory.
#pragma once

#include <libelf.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "elf/elf_file.hpp"

namespace wheelmod::elf::detail {

/// libelf's message for its last error (elf_errmsg(-1)), or a fixed text when it has none.
std::string libelf_error();

/// One entry of the dynamic array (gABI "Dynamic Section"): d_tag and d_un.
struct DynEntry {
  std::int64_t tag = 0;
  std::uint64_t value = 0;
};

/// Owns the libelf handle over a borrowed file descriptor.
class ElfImage {
 public:
  /// Reads the ELF header, the program headers and the dynamic array of the
  /// ELF file open as `fd` (kept open by the caller while this lives).
  /// Throws IoError naming `file` when any of them is broken.
  ElfImage(int fd, std::filesystem::path file);
  ~ElfImage();
  ElfImage(const ElfImage&) = delete;
  ElfImage& operator=(const ElfImage&) = delete;

  [[nodiscard]] const std::filesystem::path& file() const { return m_file; }
  [[nodiscard]] Elf* handle() const { return m_elf; }
  [[nodiscard]] std::uint64_t file_size() const { return m_file_size; }
  [[nodiscard]] ElfClass elf_class() const { return m_class; }
  [[nodiscard]] bool little_endian() const { return m_little_endian; }
  [[nodiscard]] std::uint16_t machine() const { return m_machine; }
  [[nodiscard]] std::uint16_t type() const { return m_type; }
  /// Bytes of an address-sized field (4 for ELF32, 8 for ELF64).
  [[nodiscard]] std::size_t word_size() const { return m_class == ElfClass::elf64 ? 8 : 4; }

  [[nodiscard]] std::optional<std::string> interpreter() const;

  [[nodiscard]] bool has_dynamic() const { return m_dynamic_offset.has_value(); }
  /// The entries before the first DT_NULL, in file order.
  [[nodiscard]] const std::vector<DynEntry>& dynamic() const { return m_dynamic; }
  /// File offset of the dynamic array and the size of one entry.
  [[nodiscard]] std::uint64_t dynamic_offset() const { return m_dynamic_offset.value_or(0); }
  [[nodiscard]] std::size_t dynamic_entry_size() const { return 2 * word_size(); }
  /// The value of the last entry with `tag` (the one ld.so uses).
  [[nodiscard]] std::optional<std::uint64_t> find(std::int64_t tag) const;

  /// The file offset of [address, address + size) of the memory image,
  /// through the PT_LOAD segment that holds all of it in its file part.
  [[nodiscard]] std::optional<std::uint64_t> address_to_offset(std::uint64_t address,
                                                               std::uint64_t size) const;
  /// The file offset of the table a DT_* address tag points at; throws
  /// (naming the tag) when it lies in no PT_LOAD segment.
  [[nodiscard]] std::uint64_t table_offset(std::uint64_t address, std::uint64_t size,
                                           const char* tag_name) const;

  /// File offset and size of the dynamic string table (DT_STRTAB, DT_STRSZ);
  /// throws when the dynamic array lacks them or they are outside the file.
  [[nodiscard]] std::uint64_t strtab_offset() const;
  [[nodiscard]] std::uint64_t strtab_size() const;
  /// The NUL-terminated string at `index` of the dynamic string table.
  [[nodiscard]] std::string read_string(std::uint64_t index) const;

  /// Reads exactly out.size() bytes at `offset`; throws naming `what` when
  /// they are not all inside the file.
  void read_bytes(std::uint64_t offset, std::span<unsigned char> out, const char* what) const;
  /// An unsigned integer of `size` bytes (2, 4 or 8) in the file's byte order.
  [[nodiscard]] std::uint64_t read_uint(std::uint64_t offset, std::size_t size,
                                        const char* what) const;
  [[nodiscard]] std::uint64_t decode(std::span<const unsigned char> bytes) const;
  void encode(std::uint64_t value, std::span<unsigned char> out) const;

  /// The IoError for a broken structure: "<file>: broken ELF file: <what>".
  [[nodiscard]] IoError broken(const std::string& what) const;

 private:
  void read_program_headers();
  void read_dynamic_array(std::uint64_t offset, std::uint64_t size);
  void locate_strtab() const;

  int m_fd;
  std::filesystem::path m_file;
  Elf* m_elf = nullptr;
  std::uint64_t m_file_size = 0;
  ElfClass m_class = ElfClass::elf64;
  bool m_little_endian = true;
  std::uint16_t m_machine = 0;
  std::uint16_t m_type = 0;

  struct Segment {
    std::uint32_t type;
    std::uint64_t offset, vaddr, filesz;
  };
  std::vector<Segment> m_segments;
  std::optional<std::uint64_t> m_dynamic_offset;
  std::vector<DynEntry> m_dynamic;
  mutable std::optional<std::uint64_t> m_strtab_offset;
  mutable std::uint64_t m_strtab_size = 0;
};

/// Checked `a + b <= limit` without overflow.
[[nodiscard]] inline bool fits(std::uint64_t a, std::uint64_t b, std::uint64_t limit) {
  return a <= limit && b <= limit - a;
}

}  // namespace wheelmod::elf::detail
