#include "symbol_tables.hpp"

#include <system_error>

#include "elf/symbols.hpp"

namespace wheelmod::swap {

namespace fs = std::filesystem;

SymbolIndex::Id SymbolIndex::add(const fs::path& file, bool read_now) {
  Id id = 0;
  if (const auto known = m_given.find(file); known != m_given.end()) {
    id = known->second;
  } else {
    std::error_code error;
    auto key = fs::canonical(file, error);
    if (error) key = file;
    const auto [it, added] = m_ids.try_emplace(key, static_cast<Id>(m_ids.size()));
    if (added) {
      m_paths.push_back(key);
      m_read.push_back(false);
    }
    m_given.emplace(file, it->second);
    id = it->second;
  }
  if (read_now) read(id);
  return id;
}

void SymbolIndex::read(Id id) {
  if (m_read[id]) return;
  m_read[id] = true;
  try {
    for (auto& symbol : elf::read_dynamic_symbols(m_paths[id]).exported)
      m_definitions[std::move(symbol.name)].push_back(
          {id, Definition{symbol.version.value_or(""), symbol.hidden_version}});
  } catch (const std::exception&) {
    // Nothing is defined by a file that cannot be read; the loader model reports it.
  }
}

bool SymbolIndex::defined_by_read(const std::string& name,
                                  const std::optional<std::string>& version,
                                  const Files& files) const {
  const auto found = m_definitions.find(name);
  if (found == m_definitions.end()) return false;
  for (const auto& [id, definition] : found->second)
    if (files.contains(id) && (version ? definition.version == *version : !definition.hidden))
      return true;
  return false;
}

bool SymbolIndex::defines(const std::string& name, const std::optional<std::string>& version,
                          const Files& files) {
  if (defined_by_read(name, version, files)) return true;
  for (Id id = 0; id < files.end(); ++id) {
    if (!files.contains(id) || m_read[id]) continue;
    read(id);
    if (defined_by_read(name, version, files)) return true;
  }
  return false;
}

}  // namespace wheelmod::swap
