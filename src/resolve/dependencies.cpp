// Mapping a wheel's Requires-Dist to what provides each requirement on an
// EasyBuild system: another wheel of this resolution, a module of the
// toolchain generation (config/eb-dependencies.yaml), or an extra wheel
// from the index installed alongside ("bundled").
#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "core/json_depth.hpp"
#include "pep/name.hpp"
#include "pep/version.hpp"
#include "session.hpp"
#include "verdict.hpp"

namespace wheelmod::resolve {

namespace {

constexpr unsigned k_max_bundle_depth = 4;

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

  // `extras`: those the wheel was required with (cuda-toolkit[cudart,...]), whose
  // `extra == "cudart"` requirements then apply too (PEP 508 "Extras").
  void map(ChosenWheel& wheel, const pep::CoreMetadata& metadata, unsigned depth,
           const std::vector<std::string>& extras = {}) {
    for (const auto& requirement : metadata.requires_dist) {
      if (!requirement.applies_to(m_session.environment, extras)) continue;
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
    if (generation && dependency.name == "cuda-toolkit" &&
        map_cuda_toolkit(dependency, requirement))
      return dependency;
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
    // The provider whose verdict is best: exact, then compatible, the table's order (most used
    // first) breaking ties.
    const easybuild::LibraryProvider* best = providers.front();
    LibraryVerdict verdict = judge(requirement, dependency.name, library, *best);
    for (const auto* provider : providers) {
      auto candidate = judge(requirement, dependency.name, library, *provider);
      if (candidate.rank > verdict.rank) {
        verdict = std::move(candidate);
        best = provider;
      }
    }
    dependency.resolution = DependencyResolution::eb_module;
    dependency.provider = best->module;
    dependency.provided_version = verdict.provided;
    dependency.compatibility = verdict.compatibility;
    dependency.note = verdict.note;
    dependency.module_source = installed ? "installed here" : "table";
    if (best->installed_here)
      dependency.note += (dependency.note.empty() ? "" : "; ") +
                         std::string("the site's module; the table names none installed");
    return true;
  }

  std::optional<std::filesystem::path> root_of(const std::string& module) const {
    const auto& roots = m_session.request.module_root;
    return roots ? roots(module) : std::nullopt;
  }

  // A component's version from the CUDA module's version.json, where the module is installed
  // here and says it.
  std::optional<std::string> component_version(const easybuild::LibraryProvider& provider,
                                               std::string_view package) {
    if (provider.name != "CUDA") return std::nullopt;
    const auto key = component_key(package);
    if (!key) return std::nullopt;
    auto [cached, added] = m_version_json.try_emplace(provider.module);
    if (added) {
      if (const auto root = root_of(provider.module)) {
        std::optional<std::string> text;
        try {
          text = read_file_if_exists(*root / "version.json");
        } catch (const Error&) {  // unreadable: the component's version stays unknown
        }
        if (text && !json_too_deep(*text))
          cached->second = nlohmann::json::parse(*text, nullptr, false);
      }
    }
    const auto& document = cached->second;
    if (!document.is_object()) return std::nullopt;
    const auto entry = document.find(*key);
    if (entry == document.end() || !entry->is_object()) return std::nullopt;
    const auto version = entry->find("version");
    if (version == entry->end() || !version->is_string()) return std::nullopt;
    return version->get<std::string>();
  }

  // Whether an installed module's library directory holds every SONAME the wheel's libraries
  // need; nullopt where the module is not installed here (only the table names it).
  std::optional<bool> has_sonames(const easybuild::LibraryProvider& provider,
                                  const easybuild::CudaLibrary& library) const {
    const auto root = root_of(provider.module);
    if (!root) return std::nullopt;
    std::error_code error;
    return std::ranges::all_of(library.libraries, [&](const std::string& soname) {
      return std::filesystem::exists(*root / provider.libdir / soname, error) ||
             std::filesystem::exists(*root / "lib" / soname, error) ||
             std::filesystem::exists(*root / "lib64" / soname, error);
    });
  }

  // The verdict of `provider` for `requirement` (resolve/verdict.hpp), with what only the site
  // can tell: the component's version in the CUDA module's version.json, and whether the
  // installed module has the SONAMEs.
  LibraryVerdict judge(const pep::Requirement& requirement, std::string_view package,
                       const easybuild::CudaLibrary& library,
                       const easybuild::LibraryProvider& provider) {
    return judge_library(requirement, package, library, provider,
                         {component_version(provider, package), has_sonames(provider, library)});
  }

  // `cuda-toolkit[cudart,cufft,...]==13.0.2` (torch from 2.11): the metapackage's version is the
  // CUDA toolkit's, and each extra stands for one toolkit library. All of them come from the
  // generation's CUDA module; an extra whose library no module provides is named as missing.
  bool map_cuda_toolkit(Dependency& dependency, const pep::Requirement& requirement) {
    const auto* generation = m_session.request.generation;
    const auto cuda = target_cuda_version(m_session);
    const auto target = pep::Version::parse(cuda);
    if (!target || requirement.extras.empty()) return false;
    const auto major = std::to_string(release_part(*target, 0));
    const auto& installed = m_session.request.module_installed;
    const easybuild::LibraryProvider* module = nullptr;
    std::vector<std::string> found, missing;
    for (const auto& extra : requirement.extras) {
      const auto package = toolkit_extra_package(extra, major);
      const auto library =
          package ? generation->cuda_libraries.find(*package) : generation->cuda_libraries.end();
      if (library == generation->cuda_libraries.end()) {
        missing.push_back(extra + (package ? " (" + *package + ": no module of " +
                                                 generation->name + " provides it)"
                                           : " (no toolkit library of that name)"));
        continue;
      }
      const easybuild::LibraryProvider* provider = nullptr;
      for (const auto& candidate : library->second.provided_by)
        if (candidate.name == "CUDA" && serves_cuda(candidate.cuda, cuda) &&
            (!installed || installed(candidate.module))) {
          provider = &candidate;
          break;
        }
      if (provider == nullptr) {
        missing.push_back(
            extra + " (" + *package + ", " + sonames_text(library->second) + ": no CUDA module " +
            (installed ? "installed here" : "of " + generation->name) + " provides it)");
        continue;
      }
      if (module == nullptr) module = provider;
      const auto sonames = sonames_text(library->second);
      found.push_back(extra + (sonames.empty() ? "" : " " + sonames));
    }
    const auto joined = [](const std::vector<std::string>& items) {
      std::string out;
      for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
      return out;
    };
    if (!missing.empty()) {
      dependency.resolution = DependencyResolution::missing;
      dependency.note =
          "extras of cuda-toolkit without a module: " + joined(missing) +
          (found.empty() ? std::string() : "; found in " + module->module + ": " + joined(found));
      return true;
    }
    dependency.resolution = DependencyResolution::eb_module;
    dependency.provider = module->module;
    dependency.provided_version = module->version;
    dependency.module_source = installed ? "installed here" : "table";
    const auto provided = pep::Version::parse(module->version);
    const auto pinned = pinned_version(requirement);
    const auto wanted = requirement.specifier.str();
    std::string verdict;
    if (pinned && provided && *pinned == *provided) {
      dependency.compatibility = Compatibility::exact;
      verdict = "exact";
    } else if (pinned && provided && release_part(*pinned, 0) == release_part(*provided, 0) &&
               *provided >= *pinned) {
      dependency.compatibility = Compatibility::compatible;
      verdict = fmt::format(
          "wants CUDA {}; {} is CUDA {}: compatible by CUDA minor-version "
          "compatibility (the same major {}, not older)",
          pinned->str(), module->module, module->version, release_part(*pinned, 0));
    } else if (provided && !wanted.empty() &&
               requirement.specifier.contains(*provided, pep::Prereleases::allow)) {
      dependency.compatibility = Compatibility::compatible;
      verdict = fmt::format("wants {}; {} is CUDA {}: within the range", wanted, module->module,
                            module->version);
    } else if (wanted.empty()) {
      dependency.compatibility = Compatibility::compatible;
      verdict = "no version required; " + module->module + " is CUDA " + module->version;
    } else {
      dependency.compatibility = Compatibility::incompatible;
      verdict =
          fmt::format("wants {}; {} is CUDA {}: {}", wanted, module->module, module->version,
                      pinned && provided && release_part(*pinned, 0) == release_part(*provided, 0)
                          ? "older than the toolkit the wheels were built with"
                          : "another CUDA major version");
    }
    dependency.note = verdict + "; its extras from " + module->module + ": " + joined(found);
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
    map(copy, parsed.metadata, depth + 1, requirement.extras);
    m_bundled[position] = std::move(copy);
    return true;
  }

  Session& m_session;
  std::map<std::string, nlohmann::json> m_version_json;  // module -> its version.json (or null)
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
