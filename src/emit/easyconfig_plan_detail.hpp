// Internal to easyconfig_plan*.cpp: the state of one planning run and the
// steps that fill an easyconfig (dependencies from requirements, sanity
// checks, the CUDA-wheel-bundle decision).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/strings.hpp"
#include "emit/easyconfig_plan.hpp"

namespace wheelmod::emit::detail {

class PlanContext {
 public:
  explicit PlanContext(const StackRequest& request);

  /// An easyconfig with the parts every generated one shares: name,
  /// version (torch's), versionsuffix, toolchain, header, Python and (CUDA
  /// builds) CUDA as dependencies.
  Easyconfig easyconfig(const std::string& name, std::vector<Extension> extensions) const;

  /// Dependencies from the requirements of `wheels` (arch -> wheels of this
  /// easyconfig): modules per architecture, CUDA libraries on all of
  /// them; missing ones as notes and to-add entries.
  void add_requirements(
      Easyconfig& easyconfig,
      const std::map<std::string, std::vector<const resolve::ChosenWheel*>>& wheels);

  void add_pytorch_dependency(Easyconfig& bundle) const;
  void add_sanity_checks_for_torch(Easyconfig& easyconfig) const;
  void add_sanity_checks_for_bundle(Easyconfig& easyconfig) const;
  void add_relink(Easyconfig& easyconfig);
  /// ROCm libraries from modules: the modules as dependencies of `pytorch`.
  void add_rocm_libraries(Easyconfig& pytorch);

  /// keep + CUDA: adds the CUDA-wheel-bundle dependency to `pytorch` and
  /// returns the bundle's easyconfig when none of the generation fits.
  std::optional<Easyconfig> cuda_wheel_bundle(Easyconfig& pytorch);

  /// Dependencies deduplicated and ordered: CUDA, CUDA libraries, Python,
  /// PyTorch, the rest by name.
  void finish(Easyconfig& easyconfig) const;

  [[nodiscard]] std::vector<ToAdd> to_add() const { return m_to_add; }
  [[nodiscard]] std::vector<UnmetRequirement> unmet() const { return m_unmet; }

 private:
  DependencySpec dependency(const std::string& module, const easybuild::Toolchain& toolchain) const;
  void note(Easyconfig& easyconfig, const resolve::Dependency& requirement, const std::string& why);
  void add_to_add(std::string subject, std::string reason);
  void add_unmet(const Easyconfig& easyconfig, const std::string& arch,
                 const resolve::ChosenWheel& wheel, const resolve::Dependency& requirement,
                 std::string why);
  [[nodiscard]] bool keeps_metadata() const;
  easybuild::Toolchain minimal_toolchain(const std::vector<std::string>& modules) const;

  const StackRequest& m_request;
  const easybuild::Generation& m_generation;
  easybuild::Toolchain m_toolchain;
  std::string m_versionsuffix;
  std::string m_torch_version;       // public: 2.6.0
  std::string m_torch_full_version;  // 2.6.0+cu126 (the first architecture's)
  std::vector<std::string> m_arches;
  // keep: nvidia-* package -> version the dummy package gets
  std::map<std::string, std::string> m_dummies;
  std::set<std::string> m_library_modules;   // modules of those libraries
  std::vector<std::string> m_library_notes;  // libraries no module provides
  std::vector<ToAdd> m_to_add;
  std::vector<UnmetRequirement> m_unmet;
  std::optional<RocmLibrariesChoice> m_rocm;        // ROCm builds
  std::vector<DependencySpec> m_rocm_dependencies;  // ordered beside CUDA's, by name
};

}  // namespace wheelmod::emit::detail
