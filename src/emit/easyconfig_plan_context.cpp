#include <algorithm>
#include <cctype>
#include <set>

#include "core/errors.hpp"
#include "core/strings.hpp"
#include "easyconfig_plan_detail.hpp"
#include "emit/installation_name.hpp"
#include "pep/requirement.hpp"

namespace wheelmod::emit::detail {

namespace {

std::string without_marker(std::string_view requirement) {
  auto text = requirement.substr(0, requirement.find(';'));
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return std::string(text);
}

// The single `==V` of a requirement (what a dummy package must carry).
std::optional<std::string> pinned(std::string_view requirement) {
  const auto parsed = pep::Requirement::parse(requirement);
  if (!parsed) return std::nullopt;
  const auto& specs = parsed->specifier.specifiers();
  if (specs.size() != 1 || specs.front().op() != pep::Operator::equal || specs.front().wildcard())
    return std::nullopt;
  return specs.front().version_text();
}

// "rocm6.2.4" -> "6.2."
std::string rocm_prefix_of_variant(std::string_view variant) {
  const auto version = variant.substr(4);
  const auto dot = version.find('.');
  const auto second = dot == std::string_view::npos ? dot : version.find('.', dot + 1);
  return std::string(version.substr(0, second)) + (second == std::string_view::npos ? "" : ".");
}

// "6.2." -> "6[.]2[.]": a regular expression without backslashes, which
// would need escaping in the easyconfig's string.
std::string dotted_pattern(std::string_view text) {
  std::string out;
  for (const char c : text) out += c == '.' ? std::string("[.]") : std::string(1, c);
  return out;
}

// The public version, with or without a local label: ^2[.]6[.]0([+]|$)
std::string version_pattern(std::string_view version) {
  return "^" + dotted_pattern(version) + "([+]|$)";
}

bool is_library(const easybuild::Generation& generation, const std::string& project) {
  return generation.cuda_libraries.contains(project) || project.starts_with("nvidia-");
}

// CUDA first (it sets %(cudaver)s), then what is built for CUDA or provides the ROCm libraries
// (`accelerator`), then Python, then PyTorch, then the rest by name.
int rank(const DependencySpec& dependency, const std::vector<DependencySpec>& accelerator) {
  if (dependency.name == "CUDA") return 0;
  if (dependency.versionsuffix.find("CUDA") != std::string::npos ||
      dependency.toolchain == DependencyToolchain::system ||
      std::ranges::find(accelerator, dependency) != accelerator.end())
    return 1;
  if (dependency.name == "Python") return 2;
  if (dependency.own_version_and_suffix) return 3;
  return 4;
}

void order(std::vector<DependencySpec>& dependencies,
           const std::vector<DependencySpec>& accelerator = {}) {
  std::vector<DependencySpec> unique;
  for (auto& dependency : dependencies)
    if (std::ranges::find(unique, dependency) == unique.end())
      unique.push_back(std::move(dependency));
  std::ranges::stable_sort(unique, [&](const DependencySpec& a, const DependencySpec& b) {
    return std::tuple(rank(a, accelerator), ascii_lower(a.name), a.version, a.versionsuffix) <
           std::tuple(rank(b, accelerator), ascii_lower(b.name), b.version, b.versionsuffix);
  });
  dependencies = std::move(unique);
}

std::string regex_name(std::string_view project) {
  std::string out;
  for (const char c : project) out += c == '-' ? std::string("[-_.]") : std::string(1, c);
  return out;
}

}  // namespace

PlanContext::PlanContext(const StackRequest& request)
    : m_request(request), m_generation(*request.generation) {
  const auto toolchain = m_generation.toolchains.find(request.toolchain);
  if (toolchain == m_generation.toolchains.end())
    throw UsageError("--toolchain " + request.toolchain,
                     "not a toolchain of generation " + m_generation.name);
  m_toolchain = toolchain->second;
  m_rocm = choose_rocm_libraries(request);
  // The CUDA version as EasyBuild's template: the easyconfig's CUDA dependency says which. A ROCm
  // build's: the ROCm modules' where its libraries come from them (6.4.1), else the wheel's (6.4).
  m_versionsuffix =
      wheel_versionsuffix(request.accelerator, !m_rocm                ? std::string("%(cudaver)s")
                                               : m_rocm->from_modules ? m_rocm->stack
                                                                      : request.variant.substr(4));
  if (request.versionsuffix) m_versionsuffix = *request.versionsuffix;
  for (const auto& [arch, report] : request.reports) {
    m_arches.push_back(arch);
    for (const auto& wheel : report.wheels)
      if (wheel.name == "torch" && wheel.requested && m_torch_version.empty()) {
        m_torch_version = public_version(wheel.version);
        m_torch_full_version = wheel.version;
      }
  }
  std::ranges::sort(m_arches);
}

bool PlanContext::keeps_metadata() const {
  return m_request.metadata == easybuild::MetadataPolicy::keep &&
         m_request.accelerator == index_client::AcceleratorKind::cuda;
}

DependencySpec PlanContext::dependency(const std::string& module,
                                       const easybuild::Toolchain& toolchain) const {
  const auto cuda = m_request.accelerator == index_client::AcceleratorKind::cuda
                        ? m_request.cuda_version
                        : std::string();
  auto spec = dependency_from_module(module, m_generation, toolchain, cuda);
  if (!spec)
    throw UsageError(
        "--toolchain " + m_request.toolchain, spec.error(),
        "generate for the generation's full toolchain, e.g. --toolchain foss-" + m_generation.name);
  return *spec;
}

void PlanContext::add_to_add(std::string subject, std::string reason) {
  for (const auto& item : m_to_add)
    if (item.subject == subject) return;
  m_to_add.push_back({std::move(subject), std::move(reason)});
}

void PlanContext::add_unmet(const Easyconfig& easyconfig, const std::string& arch,
                            const resolve::ChosenWheel& wheel,
                            const resolve::Dependency& requirement, std::string why) {
  m_unmet.push_back({easyconfig.name, arch, without_marker(requirement.requirement), wheel.filename,
                     std::move(why)});
}

void PlanContext::note(Easyconfig& easyconfig, const resolve::Dependency& requirement,
                       const std::string& why) {
  const auto line = "wheelmod: " + without_marker(requirement.requirement) + ": " + why;
  if (std::ranges::find(easyconfig.dependency_notes, line) == easyconfig.dependency_notes.end())
    easyconfig.dependency_notes.push_back(line);
}

Easyconfig PlanContext::easyconfig(const std::string& name,
                                   std::vector<Extension> extensions) const {
  Easyconfig easyconfig;
  easyconfig.name = name;
  easyconfig.version = m_torch_version;
  easyconfig.versionsuffix = m_versionsuffix;
  easyconfig.homepage = "https://pytorch.org/";
  easyconfig.toolchain = m_toolchain;
  if (m_request.accelerator == index_client::AcceleratorKind::cuda)
    easyconfig.cuda_version = m_request.cuda_version;
  easyconfig.arches = m_arches;
  const auto command = join(m_request.command, " ");
  easyconfig.header = {"Stage-1 easyconfig: the official wheels from the " + m_request.variant +
                           " variant of the PyTorch wheel index, for " + join(m_arches, " and ") +
                           ".",
                       "Generated with: " + command};
  if (m_rocm && name == "PyTorch") {
    if (m_rocm->from_modules)
      easyconfig.header.push_back(
          "ROCm libraries: from the ROCm " + m_rocm->stack + " modules of generation " +
          m_generation.name +
          " (dependencies below): after pip, `wheelmod relink --rocm-libraries modules` removes "
          "the wheel's copies of what they provide and points torch at them" +
          (m_rocm->bundled.empty() ? std::string(".")
                                   : "; " + join(m_rocm->bundled, ", ") +
                                         " stay bundled (no module of the tables provides them)."));
    else
      easyconfig.header.push_back("ROCm libraries: the wheel's own, bundled in torch/lib (" +
                                  m_rocm->why + ").");
  }
  std::string wheels;
  for (const auto& extension : extensions)
    wheels += (wheels.empty() ? "" : ", ") + extension.name + " " + extension.version;
  easyconfig.description =
      name == "PyTorch"
          ? "Tensors and dynamic neural networks in Python with strong GPU acceleration.\n"
            "This module provides the official PyTorch wheels (" +
                wheels + ")."
          : "Libraries for PyTorch " + m_torch_version +
                ".\nThis module provides the official wheels (" + wheels + ").";
  easyconfig.dependencies.push_back(dependency(m_generation.python.module, m_toolchain));
  if (m_request.accelerator == index_client::AcceleratorKind::cuda)
    easyconfig.dependencies.push_back(dependency("CUDA/" + m_request.cuda_version, m_toolchain));
  easyconfig.extensions = std::move(extensions);
  easyconfig.moduleclass = "ai";
  return easyconfig;
}

void PlanContext::add_requirements(
    Easyconfig& easyconfig,
    const std::map<std::string, std::vector<const resolve::ChosenWheel*>>& wheels) {
  std::map<std::string, std::vector<DependencySpec>> per_arch;
  std::map<std::string, std::set<std::string>> strip;  // distribution -> projects
  for (const auto& arch : m_arches) per_arch[arch];
  for (const auto& [arch, list] : wheels) {
    for (const auto* wheel : list) {
      for (const auto& requirement : wheel->dependencies) {
        const bool library = is_library(m_generation, requirement.name);
        if (requirement.resolution == resolve::DependencyResolution::chosen_wheel ||
            requirement.resolution == resolve::DependencyResolution::bundled_wheel) {
          if (requirement.compatibility == resolve::Compatibility::incompatible)
            add_unmet(easyconfig, arch, *wheel, requirement,
                      requirement.provider + " is " + requirement.provided_version.value_or("?"));
          continue;
        }
        if (requirement.resolution == resolve::DependencyResolution::missing) {
          // Also a library the dummy package of --metadata keep would satisfy for pip: the
          // library itself is still missing when torch is imported.
          add_unmet(easyconfig, arch, *wheel, requirement, requirement.note);
          add_to_add(without_marker(requirement.requirement),
                     requirement.note + " (needed by " + wheel->filename + ")");
          if (library && keeps_metadata()) {
            m_dummies.emplace(requirement.name, pinned(requirement.requirement).value_or(""));
            m_library_notes.push_back(without_marker(requirement.requirement) + ": " +
                                      requirement.note);
          } else {
            note(easyconfig, requirement, requirement.note);
          }
          continue;
        }
        // For a Python package, what pip check reports; for a library, what the loader would
        // (the METADATA line is stripped or met by a dummy package, the library is not).
        if (requirement.compatibility == resolve::Compatibility::incompatible)
          add_unmet(easyconfig, arch, *wheel, requirement,
                    requirement.provider + " has " + requirement.provided_version.value_or("?") +
                        (library ? " (" + requirement.note + ")"
                                 : ", and the index has no fitting wheel to bundle"));
        if (requirement.compatibility == resolve::Compatibility::incompatible) {
          add_to_add(without_marker(requirement.requirement),
                     requirement.provider + " has " + requirement.provided_version.value_or("?") +
                         ": " + requirement.note);
          note(easyconfig, requirement,
               requirement.provider + " does not satisfy it (" + requirement.note + ")");
        }
        if (!library) {
          per_arch[arch].push_back(dependency(requirement.provider, m_toolchain));
        } else if (keeps_metadata()) {
          m_dummies.emplace(
              requirement.name,
              pinned(requirement.requirement).value_or(requirement.provided_version.value_or("")));
          m_library_modules.insert(requirement.provider);
        } else {
          // The library's module is needed wherever the wheel runs, also where
          // its METADATA does not say so (the aarch64 2.6.0+cu126 wheel).
          for (const auto& each : m_arches)
            per_arch[each].push_back(dependency(requirement.provider, m_toolchain));
          strip[wheel->filename.substr(0, wheel->filename.find('-'))].insert(requirement.name);
        }
      }
    }
  }
  for (auto& [arch, list] : per_arch) order(list);
  for (const auto& spec : per_arch.begin()->second) {
    const bool everywhere = std::ranges::all_of(per_arch, [&](const auto& entry) {
      return std::ranges::find(entry.second, spec) != entry.second.end();
    });
    if (everywhere) easyconfig.dependencies.push_back(spec);
  }
  for (const auto& [arch, list] : per_arch)
    for (const auto& spec : list)
      if (std::ranges::find(easyconfig.dependencies, spec) == easyconfig.dependencies.end())
        easyconfig.arch_dependencies[arch].push_back(spec);
  for (const auto& [distribution, projects] : strip) {
    std::string names;
    for (const auto& project : projects) names += (names.empty() ? "" : "|") + regex_name(project);
    easyconfig.postinstallcmds.push_back("sed -E -i '/^Requires-Dist: (" + names +
                                         ")([[ ;=<>!~(@]|$)/Id' "
                                         "%(installdir)s/lib/python%(pyshortver)s/site-packages/" +
                                         distribution + "-*.dist-info/METADATA");
  }
}

void PlanContext::add_pytorch_dependency(Easyconfig& bundle) const {
  bundle.dependencies.push_back(
      DependencySpec{"PyTorch", "", "", DependencyToolchain::inherited, true});
}

void PlanContext::add_sanity_checks_for_torch(Easyconfig& easyconfig) const {
  // Shell pipes instead of Python string literals: no quote inside the
  // command needs escaping in the easyconfig. The first command loads the
  // whole library chain (cuDNN included) and prints what a user asks first.
  auto& commands = easyconfig.sanity_check_commands;
  const auto version = "python -c 'import torch; print(torch.__version__)' | grep -E '" +
                       version_pattern(m_torch_version) + "'";
  switch (m_request.accelerator) {
    case index_client::AcceleratorKind::cuda: {
      // The CUDA each architecture's wheel was built for: variants may differ per architecture
      // when one CUDA module runs them all (cu129 on x86_64, cu128 on aarch64). The checksums pin
      // each file; this catches a CPU build or another variant put in by hand.
      std::set<std::string> cuda;
      for (const auto& [arch, report] : m_request.reports)
        cuda.insert(index_client::cuda_version_of_variant(report.variant.variant).value_or(""));
      if (cuda.empty())
        cuda.insert(index_client::cuda_version_of_variant(m_request.variant).value_or(""));
      std::string patterns;
      for (const auto& version_text : cuda)
        patterns += (cuda.size() == 1 ? " " : " -e ") + version_text;
      commands = {
          "python -c 'import torch; print(torch.__version__, torch.version.cuda, "
          "torch.backends.cudnn.version())'",
          version, "python -c 'import torch; print(torch.version.cuda)' | grep -Fx" + patterns};
      break;
    }
    case index_client::AcceleratorKind::rocm:
      commands = {"python -c 'import torch; print(torch.__version__, torch.version.hip)'", version,
                  "python -c 'import torch; print(torch.version.hip)' | grep -E '^" +
                      dotted_pattern(rocm_prefix_of_variant(m_request.variant)) + "'"};
      break;
    case index_client::AcceleratorKind::cpu:
      commands = {"python -c 'import torch; print(torch.__version__)'", version,
                  "python -c 'import torch; print(torch.version.cuda, torch.version.hip)' | grep "
                  "-Fx 'None None'"};
      break;
  }
}

void PlanContext::add_sanity_checks_for_bundle(Easyconfig& easyconfig) const {
  for (const auto& extension : easyconfig.extensions) {
    if (extension.name != "torchvision" && extension.name != "torchaudio") continue;
    easyconfig.sanity_check_commands.push_back("python -c 'import " + extension.name + "; print(" +
                                               extension.name + ".__version__)' | grep -E '" +
                                               version_pattern(extension.version) + "'");
  }
}

// The toolchain is inherited: EasyBuild finds the dependency on a subtoolchain
// (easyconfig.py _finalize_dependencies, robot_find_subtoolchain_for_dep), here the
// wheelmod-<v>-GCCcore-<gcccore>.eb the project ships (easyconfigs/), which `wheelmod
// easyconfig --with-relink` writes beside this one when it has one for the generation.
void PlanContext::add_relink(Easyconfig& easyconfig) {
  easyconfig.builddependencies.push_back(DependencySpec{"wheelmod", m_request.wheelmod_version, "",
                                                        DependencyToolchain::inherited, false});
  // ROCm libraries from modules: relink removes the wheel's copies (and their data and RECORD
  // rows) of what the modules, loaded as dependencies while eb builds, provide.
  easyconfig.postinstallcmds.push_back(
      "wheelmod relink %(installdir)s --toolchain " + m_request.toolchain +
      (m_rocm && m_rocm->from_modules ? " --rocm-libraries modules" : ""));
  easyconfig.postinstallcmds.push_back("wheelmod check %(installdir)s");
}

void PlanContext::add_rocm_libraries(Easyconfig& pytorch) {
  if (!m_rocm || !m_rocm->from_modules) return;
  for (const auto& module : m_rocm->modules) {
    m_rocm_dependencies.push_back(dependency(module, m_toolchain));
    pytorch.dependencies.push_back(m_rocm_dependencies.back());
  }
}

void PlanContext::finish(Easyconfig& easyconfig) const {
  order(easyconfig.dependencies, m_rocm_dependencies);
  order(easyconfig.builddependencies);
  for (auto& [arch, list] : easyconfig.arch_dependencies) order(list);
}

}  // namespace wheelmod::emit::detail
