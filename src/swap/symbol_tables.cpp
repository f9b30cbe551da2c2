#include "symbol_tables.hpp"

#include <algorithm>
#include <system_error>

#include "elf/symbols.hpp"

namespace wheelmod::swap {

namespace fs = std::filesystem;

bool defines(const SymbolTable& table, const std::string& name,
             const std::optional<std::string>& version) {
  const auto found = table.find(name);
  if (found == table.end()) return false;
  return std::ranges::any_of(found->second, [&version](const Definition& definition) {
    return version ? definition.version == *version : !definition.hidden;
  });
}

const SymbolTable& SymbolTables::of(const fs::path& file) {
  std::error_code error;
  auto key = fs::canonical(file, error);
  if (error) key = file;
  auto& slot = m_tables[key];
  if (slot) return *slot;
  slot = std::make_unique<SymbolTable>();
  try {
    for (auto& symbol : elf::read_dynamic_symbols(key).exported)
      (*slot)[symbol.name].push_back({symbol.version.value_or(""), symbol.hidden_version});
  } catch (const std::exception&) {
    // Nothing is defined by a file that cannot be read; the loader model reports it.
  }
  return *slot;
}

}  // namespace wheelmod::swap
