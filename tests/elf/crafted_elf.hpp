// Hand-made ELF files of either class and byte order, which gcc here cannot
// build: an ELF header, program headers (one PT_LOAD over the whole file at
// a base address other than 0, PT_DYNAMIC, optionally PT_INTERP), the
// dynamic string table and the dynamic array. No section headers, as in a
// stripped file. Layouts: gABI "ELF Header", "Program Header", "Dynamic
// Section".
#pragma once

#include <elf.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace wheelmod::test {

struct CraftSpec {
  bool elf64 = true;
  bool little_endian = true;
  std::uint16_t machine = EM_X86_64;
  std::uint16_t type = ET_DYN;
  std::optional<std::string> interpreter;
  std::optional<std::string> soname;
  std::vector<std::string> needed;
  std::optional<std::string> rpath;
  std::optional<std::string> runpath;
};

// A library of the given class and byte order, for a machine of that kind
// (x86-64, PPC64 big-endian, i386, PPC), needing libone.so and libtwo.so.
inline CraftSpec crafted_library(bool elf64, bool little_endian, std::string soname) {
  CraftSpec spec;
  spec.elf64 = elf64;
  spec.little_endian = little_endian;
  spec.machine = elf64 ? (little_endian ? EM_X86_64 : EM_PPC64) : (little_endian ? EM_386 : EM_PPC);
  spec.needed = {"libone.so", "libtwo.so"};
  spec.soname = std::move(soname);
  return spec;
}

struct CraftedElf {
  std::string bytes;
  std::size_t program_headers = 0;  // file offsets
  std::size_t strtab = 0;
  std::size_t dynamic = 0;
  std::size_t dynamic_entries = 0;  // without the DT_NULL
  std::size_t word = 8;
  static constexpr std::uint64_t k_base = 0x400000;  // vaddr of file offset 0
};

class ByteWriter {
 public:
  explicit ByteWriter(bool little_endian) : m_little(little_endian) {}
  void put(std::uint64_t value, std::size_t size) {
    for (std::size_t i = 0; i < size; ++i) {
      const auto shift = 8 * (m_little ? i : size - 1 - i);
      m_bytes.push_back(static_cast<char>((value >> shift) & 0xffU));
    }
  }
  void put_at(std::size_t offset, std::uint64_t value, std::size_t size) {
    for (std::size_t i = 0; i < size; ++i) {
      const auto shift = 8 * (m_little ? i : size - 1 - i);
      m_bytes[offset + i] = static_cast<char>((value >> shift) & 0xffU);
    }
  }
  void append(const std::string& text) { m_bytes += text; }
  void align(std::size_t alignment) {
    while (m_bytes.size() % alignment != 0) m_bytes.push_back('\0');
  }
  [[nodiscard]] std::size_t size() const { return m_bytes.size(); }
  [[nodiscard]] std::string& bytes() { return m_bytes; }

 private:
  bool m_little;
  std::string m_bytes;
};

inline CraftedElf craft_elf(const CraftSpec& spec) {
  CraftedElf out;
  const std::size_t word = spec.elf64 ? 8 : 4;
  const std::size_t header_size = spec.elf64 ? 64 : 52;
  const std::size_t program_header_size = spec.elf64 ? 56 : 32;
  const std::size_t programs = spec.interpreter ? 3 : 2;
  ByteWriter w(spec.little_endian);

  // e_ident, then the header fields; offsets patched below.
  w.append(std::string(ELFMAG, SELFMAG));
  w.put(spec.elf64 ? ELFCLASS64 : ELFCLASS32, 1);
  w.put(spec.little_endian ? ELFDATA2LSB : ELFDATA2MSB, 1);
  w.put(EV_CURRENT, 1);
  w.append(std::string(EI_NIDENT - 7, '\0'));
  w.put(spec.type, 2);
  w.put(spec.machine, 2);
  w.put(EV_CURRENT, 4);
  w.put(0, word);            // e_entry
  w.put(header_size, word);  // e_phoff
  w.put(0, word);            // e_shoff
  w.put(0, 4);               // e_flags
  w.put(header_size, 2);
  w.put(program_header_size, 2);
  w.put(programs, 2);
  w.put(spec.elf64 ? 64 : 40, 2);  // e_shentsize
  w.put(0, 2);
  w.put(0, 2);
  out.program_headers = w.size();
  w.append(std::string(programs * program_header_size, '\0'));

  std::size_t interpreter = 0;
  if (spec.interpreter) {
    interpreter = w.size();
    w.append(*spec.interpreter + '\0');
  }
  // gABI "String Table": index 0 holds a NUL.
  out.strtab = w.size();
  std::string strings(1, '\0');
  const auto add = [&strings](const std::string& text) {
    const auto index = strings.size();
    strings += text + '\0';
    return index;
  };
  std::vector<std::pair<std::int64_t, std::uint64_t>> entries;
  for (const auto& name : spec.needed) entries.emplace_back(DT_NEEDED, add(name));
  if (spec.soname) entries.emplace_back(DT_SONAME, add(*spec.soname));
  if (spec.rpath) entries.emplace_back(DT_RPATH, add(*spec.rpath));
  if (spec.runpath) entries.emplace_back(DT_RUNPATH, add(*spec.runpath));
  w.append(strings);
  entries.emplace_back(DT_STRTAB, CraftedElf::k_base + out.strtab);
  entries.emplace_back(DT_STRSZ, strings.size());
  w.align(word);
  out.dynamic = w.size();
  out.dynamic_entries = entries.size();
  for (const auto& [tag, value] : entries) {
    w.put(static_cast<std::uint64_t>(tag), word);
    w.put(value, word);
  }
  w.put(DT_NULL, word);
  w.put(0, word);
  const std::size_t dynamic_size = (entries.size() + 1) * 2 * word;

  const auto program = [&](std::size_t index, std::uint32_t type, std::size_t offset,
                           std::size_t size) {
    const std::size_t at = out.program_headers + index * program_header_size;
    const std::uint64_t address = CraftedElf::k_base + offset;
    if (spec.elf64) {
      w.put_at(at, type, 4);
      w.put_at(at + 4, PF_R | PF_W, 4);
      // p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align
      const std::uint64_t values[] = {offset, address, address,
                                      size,   size,    type == PT_LOAD ? 0x1000U : word};
      for (std::size_t i = 0; i < 6; ++i) w.put_at(at + 8 + 8 * i, values[i], 8);
    } else {
      const std::uint64_t values[] = {type, offset, address,     address,
                                      size, size,   PF_R | PF_W, type == PT_LOAD ? 0x1000U : word};
      for (std::size_t i = 0; i < 8; ++i) w.put_at(at + 4 * i, values[i], 4);
    }
  };
  program(0, PT_LOAD, 0, w.size());
  program(1, PT_DYNAMIC, out.dynamic, dynamic_size);
  if (spec.interpreter) program(2, PT_INTERP, interpreter, spec.interpreter->size() + 1);
  out.word = word;
  out.bytes = std::move(w.bytes());
  return out;
}

}  // namespace wheelmod::test
