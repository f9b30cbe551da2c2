#include "symbol_tables.hpp"

#include <system_error>

#include "elf/symbols.hpp"

namespace wheelmod::swap {

namespace fs = std::filesystem;

SymbolIndex::Id SymbolIndex::add(const fs::path& file) {
  if (const auto known = m_given.find(file); known != m_given.end()) return known->second;
  std::error_code error;
  auto key = fs::canonical(file, error);
  if (error) key = file;
  const auto [it, added] = m_ids.try_emplace(key, static_cast<Id>(m_ids.size()));
  m_given.emplace(file, it->second);
  if (!added) return it->second;
  try {
    for (auto& symbol : elf::read_dynamic_symbols(key).exported)
      m_definitions[symbol.name].push_back(
          {it->second, Definition{symbol.version.value_or(""), symbol.hidden_version}});
  } catch (const std::exception&) {
    // Nothing is defined by a file that cannot be read; the loader model reports it.
  }
  return it->second;
}

bool SymbolIndex::defines(const std::string& name, const std::optional<std::string>& version,
                          const Files& files) const {
  const auto found = m_definitions.find(name);
  if (found == m_definitions.end()) return false;
  for (const auto& [id, definition] : found->second)
    if (files.contains(id) && (version ? definition.version == *version : !definition.hidden))
      return true;
  return false;
}

}  // namespace wheelmod::swap
