// The CUDA-wheel-bundle decision (--metadata keep): torch's CUDA wheels
// require nvidia-* pip packages whose libraries EasyBuild modules provide;
// `pip check` in EasyBuild's sanity check passes only if packages of
// exactly the pinned versions are installed. A CUDA-wheel-bundle installs
// them as dummies (dist-info only; easyblocks' `dummy_package`).

#include "core/strings.hpp"
#include "easyconfig_plan_detail.hpp"
#include "pep/version.hpp"

namespace wheelmod::emit::detail {

namespace {

bool same_version(const std::string& a, const std::string& b) {
  const auto x = pep::Version::parse(a);
  const auto y = pep::Version::parse(b);
  return x && y ? *x == *y : a == b;
}

}  // namespace

easybuild::Toolchain PlanContext::minimal_toolchain(const std::vector<std::string>& modules) const {
  // Python is always among them, so GCCcore is the floor; a module on a
  // toolchain above it lifts the choice, two that no toolchain below the
  // requested one joins give the requested one.
  easybuild::Toolchain chosen{"GCCcore", m_generation.gcccore, "", ""};
  if (!m_generation.toolchains.contains("GCCcore-" + m_generation.gcccore)) return m_toolchain;
  for (const auto& module : modules) {
    const auto parts = parse_module_name(module, m_generation);
    if (!parts || !parts->toolchain) continue;
    const auto& toolchain = m_generation.toolchains.at(*parts->toolchain);
    if (is_subtoolchain(toolchain.name, chosen.name)) continue;
    chosen = is_subtoolchain(chosen.name, toolchain.name) ? toolchain : m_toolchain;
  }
  return chosen;
}

std::optional<Easyconfig> PlanContext::cuda_wheel_bundle(Easyconfig& pytorch) {
  if (!keeps_metadata() || m_dummies.empty()) return std::nullopt;
  const auto& existing = m_generation.cuda_wheel_bundle;
  std::vector<std::string> mismatches;
  if (!existing) {
    mismatches.push_back("generation " + m_generation.name + " has no CUDA-wheel-bundle");
  } else if (existing->cuda != m_request.cuda_version) {
    mismatches.push_back(existing->module + " is for CUDA " + existing->cuda);
  } else {
    for (const auto& [project, version] : m_dummies) {
      const auto it = existing->packages.find(project);
      if (it == existing->packages.end())
        mismatches.push_back(existing->module + " has no " + project);
      else if (!same_version(it->second, version))
        mismatches.push_back(existing->module + " has " + project + " " + it->second + ", torch " +
                             m_torch_full_version + " requires ==" + version);
    }
  }
  if (mismatches.empty()) {
    pytorch.dependencies.push_back(dependency(existing->module, m_toolchain));
    for (const auto& line : m_library_notes)
      pytorch.dependency_notes.push_back("wheelmod: " + line);
    return std::nullopt;
  }

  Easyconfig bundle;
  bundle.name = "CUDA-wheel-bundle";
  bundle.version = m_request.cuda_version;
  bundle.versionsuffix = "-CUDA-%(cudaver)s";
  // Beside the generation's own bundle of the same CUDA, this one is named
  // after the torch release whose pins it carries.
  if (existing && existing->cuda == m_request.cuda_version)
    bundle.versionsuffix = "-PyTorch-" + m_torch_version + "-CUDA-%(cudaver)s";
  bundle.homepage = "https://developer.nvidia.com/cuda-toolkit";
  bundle.description =
      "Dummy Python packages (metadata only) for the NVIDIA CUDA libraries that EasyBuild modules "
      "provide, so that pip check passes for wheels that require them.\n"
      "The versions are the pins of torch " +
      m_torch_full_version + ".";
  std::vector<std::string> modules(m_library_modules.begin(), m_library_modules.end());
  modules.push_back(m_generation.python.module);
  bundle.toolchain = minimal_toolchain(modules);
  // easybuild-easyconfigs' test suite requires binutils or GCC among the build dependencies of a
  // GCCcore easyconfig ("binutils or GCC should be in build deps"); its own CUDA-wheel-bundles
  // sit on gfbf/gompi instead (CUDA-wheel-bundle-12.6.0-gfbf-2024a-CUDA-12.6.0.eb,
  // -12.8.0-gompi-2025a-CUDA-12.8.0.eb), which pass it. So: the generation's gfbf.
  if (bundle.toolchain.name == "GCCcore")
    if (const auto gfbf = m_generation.toolchains.find("gfbf-" + m_generation.name);
        gfbf != m_generation.toolchains.end())
      bundle.toolchain = gfbf->second;
  bundle.cuda_version = m_request.cuda_version;
  bundle.arches = m_arches;
  const auto command = join(m_request.command, " ");
  bundle.header = {"Dummy nvidia-* packages with the versions that torch " + m_torch_full_version +
                       " pins (easyblocks PythonPackage dummy_package).",
                   "Written because: " + join(mismatches, "; ") + ".",
                   "Generated with: " + command};
  bundle.dependencies.push_back(dependency("CUDA/" + m_request.cuda_version, bundle.toolchain));
  for (const auto& module : m_library_modules)
    bundle.dependencies.push_back(dependency(module, bundle.toolchain));
  bundle.dependencies.push_back(dependency(m_generation.python.module, bundle.toolchain));
  for (const auto& line : m_library_notes) bundle.dependency_notes.push_back("wheelmod: " + line);
  bundle.dummy_package = true;
  for (const auto& [project, version] : m_dummies) {
    if (version.empty()) {
      add_to_add(project + " (dummy package)",
                 "no ==version is required and no module gives one; add the version by hand");
      continue;
    }
    bundle.extensions.push_back(Extension{project, version, {}, std::nullopt, {}});
  }
  bundle.moduleclass = "lib";

  pytorch.dependencies.push_back(DependencySpec{bundle.name, bundle.version, bundle.versionsuffix,
                                                DependencyToolchain::inherited, false});
  return bundle;
}

}  // namespace wheelmod::emit::detail
