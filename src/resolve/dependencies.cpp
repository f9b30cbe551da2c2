// Mapping a wheel's Requires-Dist to what provides each requirement on an
// EasyBuild system: another wheel of this resolution, a module of the
// toolchain generation (config/eb-dependencies.yaml), or an extra wheel
// from the index installed alongside ("bundled").
#include <algorithm>

#include <fmt/format.h>

#include "pep/name.hpp"
#include "pep/version.hpp"
#include "session.hpp"

namespace wheelmod::resolve {

namespace {

constexpr unsigned k_max_bundle_depth = 4;

// The single `==V` a requirement pins, if it has exactly that.
std::optional<pep::Version> pinned_version(const pep::Requirement& requirement) {
  const auto& specs = requirement.specifier.specifiers();
  if (specs.size() != 1 || specs.front().op() != pep::Operator::equal || specs.front().wildcard())
    return std::nullopt;
  auto version = pep::Version::parse(specs.front().version_text());
  return version ? std::optional(*version) : std::nullopt;
}

std::uint64_t release_part(const pep::Version& v, std::size_t i) {
  return i < v.release().size() ? v.release()[i] : 0;
}

struct Verdict {
  Compatibility compatibility;
  std::string note;
};

// A library module against a pinned wheel version: the same version is
// exact; the same major.minor or major is what CUDA libraries keep
// compatible (their SONAMEs carry only the major: libcudnn.so.9).
Verdict compare_library(const pep::Version& wanted, const pep::Version& provided) {
  if (wanted == provided) return {Compatibility::exact, "exact"};
  if (release_part(wanted, 0) == release_part(provided, 0)) {
    if (release_part(wanted, 1) == release_part(provided, 1))
      return {Compatibility::compatible,
              fmt::format("same {}.{} series", release_part(wanted, 0), release_part(wanted, 1))};
    return {Compatibility::compatible,
            fmt::format("same major version ({})", release_part(wanted, 0))};
  }
  return {Compatibility::incompatible,
          fmt::format("different major version: wants {}, module has {}", release_part(wanted, 0),
                      release_part(provided, 0))};
}

// The CUDA major a toolkit library's pip package is built for: the `-cuNN` suffix of the CUDA 12
// names (nvidia-cublas-cu12), else the `nvidia/cuNN/lib` directory that the unsuffixed CUDA 13
// wheels share (nvidia-cublas installs nvidia/cu13/lib/libcublas.so.13; pytorch
// .github/scripts/generate_binary_build_matrix.py lists them for 13.0 without a suffix).
std::optional<std::string> package_cuda_major(std::string_view package,
                                              const easybuild::CudaLibrary& library) {
  if (const auto suffix = package.rfind("-cu"); suffix != std::string_view::npos) {
    const auto digits = package.substr(suffix + 3);
    if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos)
      return std::string(digits);
  }
  constexpr std::string_view k_prefix = "nvidia/cu";
  const std::string_view dir = library.wheel_libdir;
  if (dir.starts_with(k_prefix) && dir.ends_with("/lib")) {
    const auto digits = dir.substr(k_prefix.size(), dir.size() - k_prefix.size() - 4);
    if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos)
      return std::string(digits);
  }
  return std::nullopt;
}

// A library that ships inside the CUDA toolkit (cuFFT, cuRAND, cuBLAS...)
// has its own version numbers (nvidia-cufft-cu12==11.3.0.4 is part of CUDA
// 12.6, nvidia-cufft==12.0.0.61 of CUDA 13.0); what must agree is the CUDA
// major the pip package is built for, since each toolkit major keeps its
// libraries' SONAMEs.
Verdict compare_with_toolkit(std::string_view package, const easybuild::CudaLibrary& library,
                             const pep::Version& wanted, const pep::Version& toolkit) {
  if (release_part(wanted, 0) == release_part(toolkit, 0) &&
      release_part(wanted, 1) == release_part(toolkit, 1))
    return {Compatibility::compatible,
            fmt::format("same {}.{} series", release_part(wanted, 0), release_part(wanted, 1))};
  const auto major = package_cuda_major(package, library);
  if (major && *major == std::to_string(release_part(toolkit, 0)))
    return {Compatibility::compatible,
            fmt::format("part of the CUDA {} toolkit", release_part(toolkit, 0))};
  return {Compatibility::incompatible, fmt::format("a CUDA {} library is not part of CUDA {}",
                                                   major.value_or("?"), toolkit.str())};
}

// Modules made for another CUDA than the target's are skipped (Triton
// 3.1.0-CUDA-12.6.0 is no use with CUDA 12.4).
bool fits_cuda(const std::optional<std::string>& module_cuda, const std::string& target_cuda) {
  if (!module_cuda || target_cuda.empty()) return true;
  const auto a = pep::Version::parse(*module_cuda);
  const auto b = pep::Version::parse(target_cuda);
  if (!a || !b) return *module_cuda == target_cuda;
  return release_part(*a, 0) == release_part(*b, 0) && release_part(*a, 1) == release_part(*b, 1);
}

// A CUDA library module serves wheels of its CUDA major built for the same or an older minor
// (cuDNN/9.23.0.39-CUDA-13.3.0 for a cu130 wheel: CUDA minor version compatibility).
bool serves_cuda(const std::optional<std::string>& module_cuda, const std::string& target_cuda) {
  if (!module_cuda || target_cuda.empty()) return true;
  const auto a = pep::Version::parse(*module_cuda);
  const auto b = pep::Version::parse(target_cuda);
  if (!a || !b) return *module_cuda == target_cuda;
  return release_part(*a, 0) == release_part(*b, 0) && *a >= *b;
}

std::string target_cuda_version(const Session& session) {
  const auto& request = session.request;
  if (request.accelerator.kind != index_client::AcceleratorKind::cuda) return "";
  if (request.accelerator.version) return *request.accelerator.version;
  if (request.generation && request.generation->cuda) return request.generation->cuda->version;
  return "";
}

class DependencyMapper {
 public:
  DependencyMapper(Session& session, std::string variant, const std::vector<ChosenWheel>& chosen,
                   std::vector<ChosenWheel>& bundled)
      : m_session(session), m_variant(std::move(variant)), m_chosen(chosen), m_bundled(bundled) {}

  void map(ChosenWheel& wheel, const pep::CoreMetadata& metadata, unsigned depth) {
    for (const auto& requirement : metadata.requires_dist) {
      if (!requirement.applies_to(m_session.environment)) continue;
      wheel.dependencies.push_back(map_one(requirement, depth));
    }
  }

 private:
  Dependency map_one(const pep::Requirement& requirement, unsigned depth) {
    Dependency dependency;
    dependency.requirement = requirement.str();
    dependency.name = requirement.canonical_name();
    if (const auto* wheel = find_chosen(dependency.name)) {
      const auto version = pep::Version::parse(wheel->version);
      dependency.resolution = DependencyResolution::chosen_wheel;
      dependency.provider = wheel->filename;
      dependency.provided_version = wheel->version;
      const bool ok = version && requirement.specifier.contains(*version, pep::Prereleases::allow);
      dependency.compatibility = ok ? Compatibility::exact : Compatibility::incompatible;
      dependency.note = wheel->requested ? "requested in this resolution" : "bundled wheel";
      return dependency;
    }
    const auto* generation = m_session.request.generation;
    bool library = false;
    if (generation) {
      if (const auto it = generation->cuda_libraries.find(dependency.name);
          it != generation->cuda_libraries.end()) {
        library = true;
        if (map_library(dependency, requirement, it->second)) return dependency;
      } else if (const auto python = generation->python_packages.find(dependency.name);
                 python != generation->python_packages.end()) {
        if (map_python_module(dependency, requirement, python->second)) return dependency;
      }
    }
    // A CUDA library is bundled only when asked: a site with modules does
    // not expect a prefix carrying its own copy of cuDNN or NCCL.
    const bool bundle_library = m_session.request.missing_libraries == MissingLibraries::bundle;
    if ((!library || bundle_library) && bundle(dependency, requirement, depth)) {
      add_rocm_sdk_note(dependency);
      return dependency;
    }
    if (library) {
      dependency.resolution = DependencyResolution::missing;
      if (bundle_library) dependency.note += "; the index has no fitting wheel to bundle";
    }
    if (dependency.resolution != DependencyResolution::eb_module) {
      dependency.resolution = DependencyResolution::missing;
      if (dependency.note.empty())
        dependency.note =
            generation ? "no module of " + generation->name +
                             " provides it and the index has no fitting wheel"
                       : "no --toolchain to map it to a module, and the index has no fitting wheel";
    }
    add_rocm_sdk_note(dependency);
    return dependency;
  }

  // TheRock's ROCm SDK wheels (rocm, rocm-sdk-core, rocm-sdk-libraries-*, rocm-sdk-device-*),
  // which ROCm 7.x torch builds require instead of bundling ROCm (pytorch/pytorch#191688), are
  // found through `$ORIGIN/../../_rocm_sdk_*` RPATHs. No EasyBuild module has that layout: the
  // generation's ROCm modules (HIP, rocBLAS, ...) are another build of the same libraries under
  // other paths, so the wheels stay bundled (or missing) and the report says why.
  static void add_rocm_sdk_note(Dependency& dependency) {
    if (dependency.name != "rocm" && !dependency.name.starts_with("rocm-sdk")) return;
    if (dependency.resolution == DependencyResolution::eb_module ||
        dependency.resolution == DependencyResolution::chosen_wheel)
      return;
    dependency.note +=
        "; no EasyBuild module replaces TheRock's ROCm SDK wheels (torch finds "
        "them through $ORIGIN RPATHs into _rocm_sdk_*)";
  }

  const ChosenWheel* find_chosen(const std::string& name) const {
    for (const std::vector<ChosenWheel>* list :
         {&m_chosen, const_cast<const std::vector<ChosenWheel>*>(&m_bundled)})
      for (const auto& wheel : *list)
        if (wheel.name == name) return &wheel;
    return nullptr;
  }

  bool map_library(Dependency& dependency, const pep::Requirement& requirement,
                   const easybuild::CudaLibrary& library) {
    const auto cuda = target_cuda_version(m_session);
    const auto& installed = m_session.request.module_installed;
    std::vector<const easybuild::LibraryProvider*> providers;
    std::string absent;  // modules of the table this site lacks
    for (const auto& provider : library.provided_by) {
      if (!serves_cuda(provider.cuda, cuda)) continue;
      if (installed && !installed(provider.module)) {
        absent += (absent.empty() ? "" : ", ") + provider.module;
        continue;
      }
      providers.push_back(&provider);
    }
    if (providers.empty()) {
      const auto& what = library.libraries.empty() ? dependency.name : library.libraries.front();
      dependency.note =
          absent.empty()
              ? "no module of " + m_session.request.generation->name + " provides " + what
              : "no module for " + what + " is installed here (" + absent + " not found)";
      return false;
    }
    const auto* best = providers.front();
    Verdict verdict{Compatibility::compatible, "no version pinned"};
    if (const auto wanted = pinned_version(requirement)) {
      verdict = {Compatibility::incompatible, "no module version given"};
      // Exact first, then the same series, then the same major; the
      // table's order (most used first) breaks ties.
      int best_score = -1;
      for (const auto* provider : providers) {
        const auto provided = pep::Version::parse(provider->version);
        if (!provided) continue;
        const auto candidate =
            provider->name == "CUDA"
                ? compare_with_toolkit(dependency.name, library, *wanted, *provided)
                : compare_library(*wanted, *provided);
        const int score = candidate.compatibility == Compatibility::exact ? 3
                          : candidate.compatibility == Compatibility::compatible
                              ? (candidate.note.starts_with("same major") ? 1 : 2)
                              : 0;
        if (score > best_score) {
          best_score = score;
          best = provider;
          verdict = candidate;
        }
      }
      if (verdict.compatibility != Compatibility::exact)
        verdict.note = fmt::format("wants {}, {} has {}: {}", wanted->str(), best->name,
                                   best->version, verdict.note);
    }
    dependency.resolution = DependencyResolution::eb_module;
    dependency.provider = best->module;
    dependency.provided_version = best->version;
    dependency.compatibility = verdict.compatibility;
    dependency.note = verdict.note;
    dependency.module_source = installed ? "installed here" : "table";
    if (best->installed_here)
      dependency.note += (dependency.note.empty() ? "" : "; ") +
                         std::string("the site's module; the table names none installed");
    return true;
  }

  bool map_python_module(Dependency& dependency, const pep::Requirement& requirement,
                         const std::vector<easybuild::PythonProvider>& providers) {
    const auto cuda = target_cuda_version(m_session);
    const easybuild::PythonProvider* first = nullptr;
    for (const auto& provider : providers) {
      if (!fits_cuda(provider.cuda, cuda)) continue;
      if (first == nullptr) first = &provider;
      const auto version = pep::Version::parse(provider.package_version);
      if (version && requirement.specifier.contains(*version, pep::Prereleases::allow)) {
        dependency.resolution = DependencyResolution::eb_module;
        dependency.provider = provider.module;
        dependency.provided_version = provider.package_version;
        dependency.compatibility =
            pinned_version(requirement) ? Compatibility::exact : Compatibility::compatible;
        dependency.note = requirement.specifier.empty()
                              ? "no version required"
                              : "satisfies " + requirement.specifier.str();
        return true;
      }
    }
    if (first != nullptr) {
      // Remember the nearest module: used when no wheel can be bundled.
      dependency.resolution = DependencyResolution::eb_module;
      dependency.provider = first->module;
      dependency.provided_version = first->package_version;
      dependency.compatibility = Compatibility::incompatible;
      dependency.note =
          "wants " + requirement.specifier.str() + ", module has " + first->package_version;
    } else {
      dependency.note = "no module of " + m_session.request.generation->name + " provides it";
    }
    return false;
  }

  // An extra wheel from the index (same variant), for what no module
  // provides in a fitting version.
  bool bundle(Dependency& dependency, const pep::Requirement& requirement, unsigned depth) {
    if (depth >= k_max_bundle_depth) return false;
    const auto& variant = m_variant;
    const auto* page = m_session.page(variant, dependency.name);
    if (page == nullptr) return false;
    const index_client::CandidateFilter filter{dependency.name, requirement.specifier, variant,
                                               pinned_version(requirement).has_value(),
                                               m_session.request.wheel_variant};
    const auto set = index_client::collect_candidates(*page, filter, m_session.request.tag_target,
                                                      m_session.priority);
    if (set.fitting.empty()) return false;
    const auto& candidate = set.fitting.front();
    const auto previous_note =
        dependency.resolution == DependencyResolution::eb_module
            ? " (" + dependency.provider + " has " + dependency.provided_version.value_or("?") + ")"
            : std::string();
    dependency.resolution = DependencyResolution::bundled_wheel;
    dependency.provider = candidate.link.filename;
    dependency.provided_version = candidate.wheel.version.str();
    dependency.compatibility = Compatibility::exact;
    dependency.note = "from the index" + previous_note;
    auto wheel = describe_candidate(m_session, candidate, variant, false,
                                    "bundled: needed as " + requirement.str() + previous_note);
    const auto& parsed = m_session.metadata(candidate);
    wheel.metadata_source = std::string(describe(parsed.source));
    m_bundled.push_back(std::move(wheel));
    // Its own dependencies (sympy needs mpmath). The vector may grow while
    // we map, so work on a copy and store it back.
    auto copy = m_bundled.back();
    const auto position = m_bundled.size() - 1;
    map(copy, parsed.metadata, depth + 1);
    m_bundled[position] = std::move(copy);
    return true;
  }

  Session& m_session;
  std::string m_variant;
  const std::vector<ChosenWheel>& m_chosen;
  std::vector<ChosenWheel>& m_bundled;
};

}  // namespace

void map_dependencies(Session& session, ChosenWheel& wheel, const pep::CoreMetadata& metadata,
                      const std::vector<ChosenWheel>& chosen, std::vector<ChosenWheel>& bundled) {
  DependencyMapper mapper(session, wheel.variant, chosen, bundled);
  mapper.map(wheel, metadata, 0);
}

}  // namespace wheelmod::resolve
