// EasyBuild's module naming schemes, as far as wheelmod writes modules: EasyBuildMNS (flat,
// EasyBuild's default) and HierarchicalMNS (Core / Compiler / MPI levels). The rules are those of
// easybuild-framework's tools/module_naming_scheme/{easybuild_mns,hierarchical_mns}.py; the
// toolchains' compiler and MPI come from the tables (config/README.md "toolchains").
#pragma once

#include <string>
#include <string_view>

#include "easybuild/config.hpp"

namespace wheelmod::easybuild {

enum class NamingScheme { easybuild_mns, hierarchical_mns };

/// "EasyBuildMNS" or "HierarchicalMNS", as `module-naming-scheme` spells them. Throws UsageError
/// (exit 2) naming `origin` (where the value came from) for any other scheme.
NamingScheme parse_naming_scheme(std::string_view value, std::string_view origin);

/// A module's place in the tree below `<installpath-modules>/<suffix-modules-path>`.
struct ModuleName {
  std::string subdir;  // "" (EasyBuildMNS), Core, Compiler/GCC/13.3.0, MPI/GCC/13.3.0/OpenMPI/5.0.3
  std::string name;    // what users load: PyTorch/2.6.0-foss-2024a-... or PyTorch/2.6.0-CUDA-...
};

/// How modules of one generation are named. EasyBuildMNS names are what the tables and the
/// installation directories use (installation directories keep them under every scheme:
/// EasyBuild's --fixed-installdir-naming-scheme, on by default); this maps them.
class ModuleNaming {
 public:
  ModuleNaming() = default;  // EasyBuildMNS
  /// Throws UsageError when `scheme` is hierarchical and a toolchain of `generation` needed later
  /// lacks its compiler (checked in name_of, which names it).
  ModuleNaming(NamingScheme scheme, Generation generation);

  NamingScheme scheme() const { return m_scheme; }
  bool hierarchical() const { return m_scheme == NamingScheme::hierarchical_mns; }

  /// The module of EasyBuildMNS name `Name/version[-tc-tcversion][suffix]`: under
  /// HierarchicalMNS the toolchain part leaves the version and decides the level (a toolchain of
  /// the generation's tables; none found: SYSTEM, Core). Throws UsageError for a toolchain the
  /// tables give no compiler for.
  ModuleName name_of(std::string_view easybuild_mns_name) const;

  /// The module of an installation `name`/`full_version` (EasyBuildMNS: 2.6.0-foss-2024a-...)
  /// made with --toolchain `toolchain_key`: its level from the toolchain, its version without
  /// "-<toolchain_key>". Throws UsageError for a toolchain the generation does not have, or
  /// one without a compiler in the tables.
  ModuleName installation(std::string_view toolchain_key, std::string_view name,
                          std::string_view full_version) const;

  /// Whether a module loads its toolchain's module. HierarchicalMNS expands the toolchain into
  /// its components and drops those that open the way to the module (the compiler and MPI the
  /// user loaded to see it; easyblock.py make_module_dep, expand_toolchain_load() is True);
  /// wheelmod's tables list no other components, and the wheels carry their own BLAS and FFT.
  bool loads_toolchain() const { return !hierarchical(); }

 private:
  NamingScheme m_scheme = NamingScheme::easybuild_mns;
  Generation m_generation;
};

/// hierarchical_mns.py det_module_subdir for a module on `toolchain`: Compiler/<c>/<v> for a
/// compiler-only toolchain, MPI/<c>/<v>/<mpi>/<mpiversion> with an MPI. The compiler's
/// level name follows COMP_NAME_VERSION_TEMPLATES (intel-compilers and iccifort: intel).
/// Throws UsageError when the table gives the toolchain no compiler.
std::string hierarchical_subdir(std::string_view toolchain_key, const Toolchain& toolchain);

}  // namespace wheelmod::easybuild
