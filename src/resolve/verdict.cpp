#include "verdict.hpp"

#include <map>

#include <fmt/format.h>

namespace wheelmod::resolve {

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

// The verdict of `provider` for `requirement`, with a reason that states what the requirement
// asks, what the module has (the component's own version where known) and the rule applied.
LibraryVerdict judge_library(const pep::Requirement& requirement, std::string_view package,
                             const easybuild::CudaLibrary& library,
                             const easybuild::LibraryProvider& provider,
                             const ProviderFacts& facts) {
  LibraryVerdict out;
  const auto wanted_text = requirement.specifier.str();
  const auto& component = facts.component_version;
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
    return incompatible(fmt::format("wants {}; {} is CUDA {}: a CUDA {} library is not part of it",
                                    asked, provider.module, provider.version, major.value_or("?")));
  }
  if (wanted_text.empty()) return compatible("no version required; " + has);
  if (!provided) return incompatible(fmt::format("wants {}; {}: not a version", wanted_text, has));
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
    const auto present = facts.has_sonames;
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

}  // namespace wheelmod::resolve
