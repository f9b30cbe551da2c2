// The ELF reader: headers, program headers, the dynamic section and its
// strings (read_dynamic), the dynamic symbol table with GNU versions
// (read_dynamic_symbols), and ld.so.cache files. A damaged file must give
// an IoError naming it, never a crash or a read out of bounds (ASan).
#include "core/errors.hpp"
#include "elf/elf_file.hpp"
#include "elf/loader.hpp"
#include "elf/symbols.hpp"
#include "fuzz_support.hpp"

using namespace wheelmod;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::MemoryFile file(std::span(data, size));
  try {
    if (const auto info = elf::read_dynamic(file.path())) {
      if (info->rpath) (void)elf::split_search_path(*info->rpath);
      if (info->runpath) (void)elf::split_search_path(*info->runpath);
    }
  } catch (const IoError&) {
  }
  try {
    const auto symbols = elf::read_dynamic_symbols(file.path());
    for (const auto& symbol : symbols.imported)
      WHEELMOD_FUZZ_CHECK(!symbol.hidden_version || symbol.version.has_value(), symbol.name);
    for (const auto& symbol : symbols.exported) (void)elf::demangle(symbol.name);
  } catch (const IoError&) {
  }
  (void)elf::parse_ld_so_cache(std::as_bytes(std::span(data, size)));
  return 0;
}
