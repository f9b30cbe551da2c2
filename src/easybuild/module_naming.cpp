#include "easybuild/module_naming.hpp"

#include <utility>

#include "core/errors.hpp"

namespace wheelmod::easybuild {

namespace {

// `Name/fullversion` of a toolchain element, as the tables write it.
std::pair<std::string, std::string> split_module(const std::string& module) {
  const auto slash = module.find('/');
  return {module.substr(0, slash), module.substr(slash + 1)};
}

}  // namespace

NamingScheme parse_naming_scheme(std::string_view value, std::string_view origin) {
  if (value == "EasyBuildMNS") return NamingScheme::easybuild_mns;
  if (value == "HierarchicalMNS") return NamingScheme::hierarchical_mns;
  throw UsageError(std::string(origin),
                   "module naming scheme '" + std::string(value) + "' is not one wheelmod writes",
                   "wheelmod writes modules as EasyBuildMNS or HierarchicalMNS name them; use "
                   "--module-naming-scheme, or write the module with `wheelmod module --stdout` "
                   "and place it yourself");
}

std::string hierarchical_subdir(std::string_view toolchain_key, const Toolchain& toolchain) {
  if (toolchain.compiler.empty())
    throw UsageError("toolchain " + std::string(toolchain_key),
                     "the toolchain table gives no compiler for it, which HierarchicalMNS needs",
                     "add `compiler:` (and `mpi:`) to its entry in toolchains.yaml with --config "
                     "(config/README.md, \"toolchains\")");
  auto [compiler, compiler_version] = split_module(toolchain.compiler);
  // COMP_NAME_VERSION_TEMPLATES: the Intel compilers' level is called intel.
  if (compiler == "intel-compilers" || compiler == "iccifort") compiler = "intel";
  if (toolchain.mpi.empty()) return "Compiler/" + compiler + "/" + compiler_version;
  const auto [mpi, mpi_version] = split_module(toolchain.mpi);
  return "MPI/" + compiler + "/" + compiler_version + "/" + mpi + "/" + mpi_version;
}

ModuleNaming::ModuleNaming(NamingScheme scheme, Generation generation)
    : m_scheme(scheme), m_generation(std::move(generation)) {}

ModuleName ModuleNaming::name_of(std::string_view easybuild_mns_name) const {
  const std::string module(easybuild_mns_name);
  if (!hierarchical()) return {"", module};
  // easybuild_mns.py: <name>/<versionprefix><version>[-<tc name>-<tc version>]<versionsuffix>;
  // the toolchain part is the first "-<toolchain key>" that ends the name or is followed by '-'.
  const auto toolchain_at = [&module](const std::string& key) {
    const std::string marker = "-" + key;
    for (auto at = module.find(marker, module.find('/')); at != std::string::npos;
         at = module.find(marker, at + 1)) {
      const auto end = at + marker.size();
      if (end == module.size() || module[end] == '-') return at;
    }
    return std::string::npos;
  };
  std::size_t first = std::string::npos;
  const std::pair<const std::string, Toolchain>* found = nullptr;
  for (const auto* toolchains : {&m_generation.toolchains, &m_generation.rocm_toolchains}) {
    for (const auto& entry : *toolchains) {
      const auto at = toolchain_at(entry.first);
      if (at < first) {
        first = at;
        found = &entry;
      }
    }
  }
  // hierarchical_mns.py det_module_subdir: the SYSTEM toolchain's modules are in Core.
  if (found == nullptr) return {"Core", module};
  return {hierarchical_subdir(found->first, found->second),
          module.substr(0, first) + module.substr(first + 1 + found->first.size())};
}

ModuleName ModuleNaming::installation(std::string_view toolchain_key, std::string_view name,
                                      std::string_view full_version) const {
  std::string version(full_version);
  if (!hierarchical()) return {"", std::string(name) + "/" + version};
  const auto toolchain = m_generation.toolchains.find(std::string(toolchain_key));
  if (toolchain == m_generation.toolchains.end())
    throw UsageError("toolchain " + std::string(toolchain_key),
                     "not a toolchain of generation " + m_generation.name,
                     "the installation's toolchain decides its level in the module hierarchy");
  const std::string marker = "-" + toolchain->first;
  if (const auto at = version.find(marker);
      at != std::string::npos &&
      (at + marker.size() == version.size() || version[at + marker.size()] == '-'))
    version.erase(at, marker.size());
  return {hierarchical_subdir(toolchain->first, toolchain->second),
          std::string(name) + "/" + version};
}

}  // namespace wheelmod::easybuild
