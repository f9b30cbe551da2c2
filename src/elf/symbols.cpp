#include "elf/symbols.hpp"

#include <cxxabi.h>
#include <fcntl.h>
#include <gelf.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <unordered_map>

#include "core/errors.hpp"
#include "core/unique_fd.hpp"
#include "elf_image.hpp"

namespace wheelmod::elf {

namespace {

using detail::libelf_error;

using detail::ElfImage;

// LSB Core, "Symbol Versioning", "Symbol Version Table": bit 15 of a
// .gnu.version entry marks a hidden (non-default) version, the low 15 bits
// are the version index.
constexpr std::uint64_t k_versym_hidden = 0x8000;
constexpr std::uint64_t k_versym_index = 0x7fff;

// One section's bytes, read whole (never more than the file holds), and
// decoded field by field, each field checked to lie inside the section.
class SectionBytes {
 public:
  SectionBytes(const ElfImage& image, const GElf_Shdr& header, std::string what)
      : m_image(&image), m_what(std::move(what)) {
    if (header.sh_type == SHT_NOBITS) throw image.broken(m_what + " has no bytes in the file");
    if (header.sh_size > image.file_size())
      throw image.broken(m_what + " is " + std::to_string(header.sh_size) +
                         " bytes long, more than the file's " + std::to_string(image.file_size()));
    m_bytes.resize(static_cast<std::size_t>(header.sh_size));
    image.read_bytes(header.sh_offset, m_bytes, m_what.c_str());
  }

  [[nodiscard]] std::uint64_t field(std::uint64_t offset, std::size_t size) const {
    if (!detail::fits(offset, size, m_bytes.size()))
      throw m_image->broken(m_what + ": a field at offset " + std::to_string(offset) +
                            " runs past the section's " + std::to_string(m_bytes.size()) +
                            " bytes");
    return m_image->decode(std::span(m_bytes).subspan(static_cast<std::size_t>(offset), size));
  }

  // gABI "String Table": a string starts at an index and ends at a NUL.
  [[nodiscard]] std::string string_at(std::uint64_t index) const {
    if (index >= m_bytes.size())
      throw m_image->broken("string index " + std::to_string(index) + " is outside " + m_what +
                            " (" + std::to_string(m_bytes.size()) + " bytes)");
    const unsigned char* begin = m_bytes.data() + index;
    const auto* end =
        static_cast<const unsigned char*>(std::memchr(begin, 0, m_bytes.size() - index));
    if (end == nullptr)
      throw m_image->broken("string at index " + std::to_string(index) + " of " + m_what +
                            " has no NUL before the section's end");
    return {begin, end};
  }

 private:
  const ElfImage* m_image;
  std::string m_what;
  std::vector<unsigned char> m_bytes;
};

std::vector<GElf_Shdr> section_headers(const ElfImage& image) {
  Elf* elf = image.handle();
  GElf_Ehdr header{};
  if (gelf_getehdr(elf, &header) == nullptr) throw image.broken("ELF header: " + libelf_error());
  // libelf counts no sections when their table lies outside the file; the
  // header's own count tells that apart (gABI "ELF Header": e_shnum 0 with
  // a table means the count is in section 0's sh_size).
  std::size_t count = header.e_shnum;
  if (count == 0 && header.e_shoff != 0 && elf_getshdrnum(elf, &count) != 0)
    throw image.broken("section header count: " + libelf_error());
  if (count == 0) return {};
  const std::uint64_t entry_size = gelf_fsize(elf, ELF_T_SHDR, 1, EV_CURRENT);
  if (header.e_shentsize != entry_size)
    throw image.broken("e_shentsize is " + std::to_string(header.e_shentsize) + ", not " +
                       std::to_string(entry_size));
  if (count > image.file_size() / entry_size ||
      !detail::fits(header.e_shoff, count * entry_size, image.file_size()))
    throw image.broken("section headers at offset " + std::to_string(header.e_shoff) + " (" +
                       std::to_string(count) + " entries) end beyond the file's " +
                       std::to_string(image.file_size()) + " bytes");
  std::vector<GElf_Shdr> headers(count);
  for (std::size_t i = 0; i < count; ++i) {
    Elf_Scn* section = elf_getscn(elf, i);
    if (section == nullptr || gelf_getshdr(section, &headers[i]) == nullptr)
      throw image.broken("section header " + std::to_string(i) + ": " + libelf_error());
  }
  return headers;
}

Symbol::Kind kind_of(unsigned type) {
  switch (type) {
    case STT_FUNC:
    case STT_GNU_IFUNC:  // called like a function; ld.so picks the implementation
      return Symbol::Kind::function;
    case STT_OBJECT:
    case STT_COMMON:
      return Symbol::Kind::object;
    case STT_TLS:
      return Symbol::Kind::tls;
    default:
      return Symbol::Kind::other;
  }
}

// Version index (vd_ndx, vna_other) to version name.
using VersionMap = std::unordered_map<std::uint64_t, std::string>;

class SymbolReader {
 public:
  explicit SymbolReader(const ElfImage& image)
      : m_image(image), m_sections(section_headers(image)) {}

  DynamicSymbols read() {
    const auto dynsym = find(SHT_DYNSYM);
    if (!dynsym) {
      if (m_image.find(DT_SYMTAB))
        throw m_image.broken(
            "DT_SYMTAB is set but no section header describes .dynsym "
            "(section headers stripped?)");
      return {};
    }
    const GElf_Shdr& table = m_sections[*dynsym];
    const std::uint64_t entry_size = m_image.elf_class() == ElfClass::elf64 ? 24 : 16;
    if (table.sh_entsize != entry_size || table.sh_size % entry_size != 0)
      throw m_image.broken(".dynsym has entries of " + std::to_string(table.sh_entsize) +
                           " bytes and size " + std::to_string(table.sh_size) + ", not " +
                           std::to_string(entry_size) + "-byte entries");
    const std::uint64_t count = table.sh_size / entry_size;
    const SectionBytes symbols(m_image, table, ".dynsym");
    const SectionBytes& names = linked_strings(table, ".dynsym");

    std::optional<SectionBytes> versym;
    if (const auto index = find(SHT_GNU_versym)) {
      // LSB "Symbol Version Table": one 2-byte entry per .dynsym entry.
      versym.emplace(m_image, m_sections[*index], ".gnu.version");
      if (m_sections[*index].sh_size != 2 * count)
        throw m_image.broken(".gnu.version is " + std::to_string(m_sections[*index].sh_size) +
                             " bytes for " + std::to_string(count) + " .dynsym entries");
    }
    if (const auto index = find(SHT_GNU_verdef)) read_definitions(m_sections[*index]);
    if (const auto index = find(SHT_GNU_verneed)) read_requirements(m_sections[*index]);

    DynamicSymbols out;
    // gABI "Symbol Table": entry 0 is reserved (STN_UNDEF).
    // Elf32_Sym: st_name, st_value, st_size, st_info, st_other, st_shndx;
    // Elf64_Sym: st_name, st_info, st_other, st_shndx, st_value, st_size.
    for (std::uint64_t i = 1; i < count; ++i) {
      const std::uint64_t at = i * entry_size;
      const bool elf64 = entry_size == 24;
      const auto info = static_cast<unsigned>(symbols.field(at + (elf64 ? 4 : 12), 1));
      const auto other = static_cast<unsigned>(symbols.field(at + (elf64 ? 5 : 13), 1));
      const auto section = symbols.field(at + (elf64 ? 6 : 14), 2);
      const unsigned binding = GELF_ST_BIND(info);
      const unsigned visibility = GELF_ST_VISIBILITY(other);
      const bool defined = section != SHN_UNDEF;
      const bool global = binding == STB_GLOBAL || binding == STB_WEAK;
      // An import is an undefined GLOBAL or WEAK symbol; an export a defined
      // one (or GNU_UNIQUE) that other components can see, which STV_HIDDEN
      // and STV_INTERNAL symbols are not (gABI "Symbol Visibility").
      const bool listed = defined ? (global || binding == STB_GNU_UNIQUE) &&
                                        (visibility == STV_DEFAULT || visibility == STV_PROTECTED)
                                  : global;
      if (!listed) continue;

      Symbol symbol;
      symbol.name = names.string_at(symbols.field(at, 4));
      symbol.weak = binding == STB_WEAK;
      symbol.kind = kind_of(GELF_ST_TYPE(info));
      if (versym) {
        const std::uint64_t raw = versym->field(2 * i, 2);
        // LSB "Symbol Version Table": index 0 (VER_NDX_LOCAL) and 1
        // (VER_NDX_GLOBAL, the base definition: the file's own name) carry
        // no version; higher ones are a vd_ndx of .gnu.version_d or a
        // vna_other of .gnu.version_r.
        const std::uint64_t index = raw & k_versym_index;
        if (index > VER_NDX_GLOBAL) {
          set_version(symbol, index, defined, i);
          symbol.hidden_version = (raw & k_versym_hidden) != 0;
        }
      }
      (defined ? out.exported : out.imported).push_back(std::move(symbol));
    }
    return out;
  }

 private:
  [[nodiscard]] std::optional<std::size_t> find(std::uint32_t type) const {
    for (std::size_t i = 0; i < m_sections.size(); ++i)
      if (m_sections[i].sh_type == type) return i;
    return std::nullopt;
  }

  // gABI "Section Header", sh_link: the string table of a symbol table; the
  // GNU version sections use it the same way.
  const SectionBytes& linked_strings(const GElf_Shdr& header, const char* what) {
    const std::uint32_t link = header.sh_link;
    if (link >= m_sections.size() || m_sections[link].sh_type != SHT_STRTAB)
      throw m_image.broken(std::string(what) + "'s sh_link " + std::to_string(link) +
                           " is not a string table section");
    const auto found = m_strings.find(link);
    if (found != m_strings.end()) return found->second;
    return m_strings
        .try_emplace(link, m_image, m_sections[link],
                     "string table section " + std::to_string(link))
        .first->second;
  }

  // LSB "Version Definition Section": sh_info entries chained by vd_next
  // (0 ends the chain); vd_aux leads to the Verdaux naming the version.
  void read_definitions(const GElf_Shdr& header) {
    const SectionBytes bytes(m_image, header, ".gnu.version_d");
    const SectionBytes& strings = linked_strings(header, ".gnu.version_d");
    std::uint64_t offset = 0;
    for (std::uint64_t n = 0; n < header.sh_info; ++n) {
      if (const auto revision = bytes.field(offset, 2); revision != VER_DEF_CURRENT)
        throw m_image.broken(".gnu.version_d entry at offset " + std::to_string(offset) +
                             " has vd_version " + std::to_string(revision));
      const std::uint64_t index = bytes.field(offset + 4, 2);
      const std::uint64_t name = bytes.field(offset + bytes.field(offset + 12, 4), 4);
      m_defined.try_emplace(index, strings.string_at(name));
      const std::uint64_t next = bytes.field(offset + 16, 4);
      if (next == 0) break;
      offset += next;
    }
  }

  // LSB "Version Needed Section": sh_info Verneed entries (one per needed
  // file) chained by vn_next, each with vn_cnt Vernaux entries chained by
  // vna_next; vna_other is the index that .gnu.version entries use.
  void read_requirements(const GElf_Shdr& header) {
    const SectionBytes bytes(m_image, header, ".gnu.version_r");
    const SectionBytes& strings = linked_strings(header, ".gnu.version_r");
    // Valid entries are 16 bytes each and do not overlap; a damaged chain
    // of short steps must not cost quadratic time.
    std::uint64_t budget = header.sh_size / 16;
    const auto step = [&] {
      if (budget-- == 0) throw m_image.broken(".gnu.version_r holds more entries than fit in it");
    };
    std::uint64_t offset = 0;
    for (std::uint64_t n = 0; n < header.sh_info; ++n) {
      step();
      if (const auto revision = bytes.field(offset, 2); revision != VER_NEED_CURRENT)
        throw m_image.broken(".gnu.version_r entry at offset " + std::to_string(offset) +
                             " has vn_version " + std::to_string(revision));
      const std::uint64_t entries = bytes.field(offset + 2, 2);
      std::uint64_t aux = offset + bytes.field(offset + 8, 4);
      for (std::uint64_t k = 0; k < entries; ++k) {
        step();
        const std::uint64_t index = bytes.field(aux + 6, 2);
        m_needed.try_emplace(index, strings.string_at(bytes.field(aux + 8, 4)));
        const std::uint64_t next = bytes.field(aux + 12, 4);
        if (next == 0) break;
        aux += next;
      }
      const std::uint64_t next = bytes.field(offset + 12, 4);
      if (next == 0) break;
      offset += next;
    }
  }

  // Indices of definitions and requirements share one space; a defined
  // symbol looks among the definitions first (as readelf does), an
  // undefined one among the requirements.
  void set_version(Symbol& symbol, std::uint64_t index, bool defined, std::uint64_t entry) const {
    for (const bool required : {!defined, defined}) {
      const VersionMap& versions = required ? m_needed : m_defined;
      if (const auto found = versions.find(index); found != versions.end()) {
        symbol.version = found->second;
        symbol.version_required = required;
        return;
      }
    }
    throw m_image.broken(".dynsym entry " + std::to_string(entry) + " (" + symbol.name +
                         ") has version index " + std::to_string(index) +
                         ", which no version definition or requirement declares");
  }

  const ElfImage& m_image;
  std::vector<GElf_Shdr> m_sections;
  std::unordered_map<std::uint32_t, SectionBytes> m_strings;  // by section index
  VersionMap m_defined;
  VersionMap m_needed;
};

}  // namespace

DynamicSymbols read_dynamic_symbols(const std::filesystem::path& file) {
  // O_NONBLOCK: a FIFO given by mistake must not hang the open.
  const UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd) throw IoError(file.string(), std::string("cannot open: ") + std::strerror(errno));
  return read_dynamic_symbols(fd.get(), file);
}

DynamicSymbols read_dynamic_symbols(int fd, const std::filesystem::path& file) {
  if (!is_elf(fd)) throw IoError(file.string(), "not an ELF file");
  const ElfImage image(fd, file);
  return SymbolReader(image).read();
}

std::string demangle(std::string_view name) {
  // Itanium C++ ABI "External Names": every mangled name starts with _Z.
  std::string text(name);
  if (!text.starts_with("_Z")) return text;
  int status = 0;
  const std::unique_ptr<char, decltype(&std::free)> readable(
      abi::__cxa_demangle(text.c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || readable == nullptr) return text;
  return readable.get();
}

}  // namespace wheelmod::elf
