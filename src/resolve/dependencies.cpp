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

// The key of a toolkit component in a CUDA installation's version.json, as NVIDIA's runfile
// writes it at the installation's root (EasyBuild's CUDA easyblock installs from the runfile):
// {"cuda": {"version": "13.0.2"}, "libcublas": {"name": "CUDA cuBLAS", "version": "13.1.0.3"},
// "cuda_cudart": {...}, ...}. nullopt for a package that is no toolkit component.
std::optional<std::string> component_key(std::string_view package) {
  std::string name(package);
  for (const std::string_view suffix : {"-cu11", "-cu12", "-cu13"})
    if (name.ends_with(suffix)) name.resize(name.size() - suffix.size());
  static const std::map<std::string, std::string, std::less<>> keys{
      {"nvidia-cublas", "libcublas"},      {"nvidia-cuda-runtime", "cuda_cudart"},
      {"nvidia-cuda-cupti", "cuda_cupti"}, {"nvidia-cuda-nvrtc", "cuda_nvrtc"},
      {"nvidia-nvtx", "cuda_nvtx"},        {"nvidia-cufft", "libcufft"},
      {"nvidia-curand", "libcurand"},      {"nvidia-cusolver", "libcusolver"},
      {"nvidia-cusparse", "libcusparse"},  {"nvidia-nvjitlink", "libnvjitlink"},
      {"nvidia-cufile", "libcufile"}};
  const auto it = keys.find(name);
  return it == keys.end() ? std::nullopt : std::optional(it->second);
}

// The pip package an extra of the `cuda-toolkit` metapackage installs for CUDA `major`
// (cuda-toolkit 13.0.2's METADATA: `nvidia-cuda-runtime==13.0.96.*; extra == "cudart"`, ...;
// torch requires it with extras from 2.11, pytorch#174390). CUDA 12's carry the -cu12 suffix.
std::optional<std::string> toolkit_extra_package(std::string_view extra, std::string_view major) {
  static const std::map<std::string, std::string, std::less<>> packages{
      {"cublas", "nvidia-cublas"},
      {"cudart", "nvidia-cuda-runtime"},
      {"cufft", "nvidia-cufft"},
      {"cufile", "nvidia-cufile"},
      {"cupti", "nvidia-cuda-cupti"},
      {"curand", "nvidia-curand"},
      {"cusolver", "nvidia-cusolver"},
      {"cusparse", "nvidia-cusparse"},
      {"nvjitlink", "nvidia-nvjitlink"},
      {"nvrtc", "nvidia-cuda-nvrtc"},
      {"nvtx", "nvidia-nvtx"}};
  const auto it = packages.find(extra);
  if (it == packages.end()) return std::nullopt;
  return major == "13" ? it->second : it->second + "-cu" + std::string(major);
}

// The SONAMEs a library's wheels provide, the first two and how many more (cuDNN has eight).
std::string sonames_text(const easybuild::CudaLibrary& library) {
  std::string out;
  const auto& names = library.libraries;
  for (std::size_t i = 0; i < names.size() && i < 2; ++i) out += (i == 0 ? "" : ", ") + names[i];
  if (names.size() > 2) out += fmt::format(" and {} more", names.size() - 2);
  return out;
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
    Judged verdict = judge(requirement, dependency.name, library, *best);
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

  struct Judged {
    Compatibility compatibility = Compatibility::unknown;
    std::string provided;  // the component's own version where known, else the module's
    std::string note;      // what is asked, what the module has, the rule applied
    int rank = 0;          // exact 3, compatible 2 (1 by a weaker rule), incompatible 0
  };

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

  // The verdict of `provider` for `requirement`, with a reason that states what the requirement
  // asks, what the module has (the component's own version where known) and the rule applied.
  Judged judge(const pep::Requirement& requirement, std::string_view package,
               const easybuild::CudaLibrary& library, const easybuild::LibraryProvider& provider) {
    Judged out;
    const auto wanted_text = requirement.specifier.str();
    const auto component = component_version(provider, package);
    out.provided = component.value_or(provider.version);
    const auto toolkit = provider.name == "CUDA";
    const std::string has =
        component ? fmt::format("{}'s {} is {} (its version.json)", provider.module,
                                *component_key(package), *component)
        : toolkit ? fmt::format("{} is CUDA {}", provider.module, provider.version)
                  : fmt::format("{} is {}", provider.module, provider.version);
    const auto sonames = sonames_text(library);
    const auto compatible = [&](std::string why, int rank = 2) {
      out.compatibility = Compatibility::compatible;
      out.rank = rank;
      out.note = std::move(why);
      return out;
    };
    const auto incompatible = [&](std::string why) {
      out.compatibility = Compatibility::incompatible;
      out.rank = 0;
      out.note = std::move(why);
      return out;
    };
    const auto provided = pep::Version::parse(out.provided);
    // A toolkit component whose own version is not known: CUDA's minor-version compatibility,
    // by the CUDA major the pip package is built for.
    if (toolkit && !component) {
      const auto toolkit_version = pep::Version::parse(provider.version);
      const auto major = package_cuda_major(package, library);
      const std::string cuda_major =
          toolkit_version ? std::to_string(release_part(*toolkit_version, 0)) : "?";
      const std::string asked = wanted_text.empty() ? "no version" : wanted_text;
      if (major && *major == cuda_major)
        return compatible(fmt::format(
            "wants {}; {} does not say which {} it has (no version.json): compatible by CUDA "
            "minor-version compatibility, a CUDA {} library{} from a CUDA {} toolkit",
            asked, provider.module, component_key(package).value_or(std::string(package)), *major,
            sonames.empty() ? "" : " (" + sonames + ")", cuda_major));
      return incompatible(
          fmt::format("wants {}; {} is CUDA {}: a CUDA {} library is not part of it", asked,
                      provider.module, provider.version, major.value_or("?")));
    }
    if (wanted_text.empty()) return compatible("no version required; " + has);
    if (!provided)
      return incompatible(fmt::format("wants {}; {}: not a version", wanted_text, has));
    const auto pinned = pinned_version(requirement);
    if (pinned && *pinned == *provided) {
      out.compatibility = Compatibility::exact;
      out.rank = 3;
      out.note = "exact";
      return out;
    }
    if (requirement.specifier.contains(*provided, pep::Prereleases::allow))
      return compatible(fmt::format("wants {}; {}: within the range", wanted_text, has));
    if (!pinned)
      return incompatible(fmt::format("wants {}; {}: outside the range", wanted_text, has));
    // A pin the module does not meet exactly: what a library keeps across versions is its
    // SONAME (libcudnn.so.9, libnccl.so.2, libcusparseLt.so.0).
    const auto wanted_major = release_part(*pinned, 0);
    if (wanted_major != release_part(*provided, 0))
      return incompatible(
          fmt::format("wants {}; {}: another major version, whose libraries "
                      "have other SONAMEs than {}",
                      wanted_text, has, sonames));
    if (wanted_major == 0) {
      // 0.x versions promise nothing across minors; what holds is the SONAME torch needs.
      const auto present = has_sonames(provider, library);
      if (present && !*present)
        return incompatible(
            fmt::format("wants {}; {}, without {} in its {}: 0.x versions "
                        "promise no compatibility, and the SONAME is missing",
                        wanted_text, has, sonames, provider.libdir));
      return compatible(
          fmt::format("wants {}; {}: 0.x versions promise no compatibility across minors; "
                      "compatible because {} {} the SONAME{} torch's libraries need",
                      wanted_text, has, provider.module,
                      present ? "has " + sonames + ","
                              : "carries " + sonames +
                                    " (the table's; "
                                    "not installed here to look),",
                      library.libraries.size() == 1 ? "" : "s"),
          1);
    }
    const bool series = release_part(*pinned, 1) == release_part(*provided, 1);
    return compatible(
        fmt::format("wants {}; {}: the same {} {}, whose libraries keep their "
                    "SONAMEs ({})",
                    wanted_text, has,
                    series ? fmt::format("{}.{} series", wanted_major, release_part(*pinned, 1))
                           : fmt::format("major version {}", wanted_major),
                    provider.name, sonames),
        series ? 2 : 1);
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
