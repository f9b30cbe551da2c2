// Editing a fixture's search path and proving the result with the real
// loader: shared by the in-place, appending and loading tests.
#pragma once

#include <filesystem>
#include <string>

#include "elf/search_path_editor.hpp"
#include "elf_test_support.hpp"

namespace wheelmod::test {

inline elf::EditMethod edit(const std::filesystem::path& file, const std::string& value,
                            elf::SearchPathTag tag, bool dry_run = false) {
  elf::EditOptions options;
  options.patchelf = WHEELMOD_PATCHELF;
  options.dry_run = dry_run;
  return elf::set_search_path(file, value, tag, options).method;
}

// Loads the library with dlopen in a fresh process (no LD_LIBRARY_PATH) and
// prints what `symbol` returns.
inline RunResult probe(const std::filesystem::path& library, const std::string& symbol) {
  return run({WHEELMOD_ELF_PROBE, library.string(), symbol});
}

inline void require_loads(const RunResult& result, const std::string& output) {
  INFO(result.output);
  CHECK(result.exit_code == 0);
  CHECK(result.output == output);
}

}  // namespace wheelmod::test
