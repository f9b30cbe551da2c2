// A module's verdict against a wheel's requirement of a CUDA library: exact, compatible or
// incompatible, with a note that says what the requirement asks, what the module has and the rule
// applied (docs/resolve-report.md, "How a module is judged against a requirement"). Pure: what
// only the site can tell (a component's version in the CUDA module's version.json, whether the
// installed module has the SONAMEs) comes in ProviderFacts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "easybuild/config.hpp"
#include "pep/requirement.hpp"
#include "pep/version.hpp"
#include "resolve/report.hpp"

namespace wheelmod::resolve {

/// The single `==V` a requirement pins, if it has exactly that.
std::optional<pep::Version> pinned_version(const pep::Requirement& requirement);

/// Part `i` of a version's release (0 where it has none).
std::uint64_t release_part(const pep::Version& v, std::size_t i);

/// The CUDA major a toolkit library's pip package is built for: its -cuNN suffix, else the
/// nvidia/cuNN/lib directory of the unsuffixed CUDA 13 wheels.
std::optional<std::string> package_cuda_major(std::string_view package,
                                              const easybuild::CudaLibrary& library);

/// The key of a toolkit component's pip package in a CUDA installation's version.json
/// (nvidia-cublas-cu12 -> libcublas); nullopt for a package that is no toolkit component.
std::optional<std::string> component_key(std::string_view package);

/// The pip package an extra of `cuda-toolkit` installs for CUDA `major` (cudart, "13" ->
/// nvidia-cuda-runtime; "12" -> nvidia-cuda-runtime-cu12).
std::optional<std::string> toolkit_extra_package(std::string_view extra, std::string_view major);

/// The SONAMEs of a library, the first two and how many more.
std::string sonames_text(const easybuild::CudaLibrary& library);

/// What the site says of one provider.
struct ProviderFacts {
  std::optional<std::string> component_version;  // from its version.json; nullopt: not known
  std::optional<bool> has_sonames;               // nullopt: the module is not installed here
};

struct LibraryVerdict {
  Compatibility compatibility = Compatibility::unknown;
  std::string provided;  // the component's own version where known, else the module's
  std::string note;      // what is asked, what the module has, the rule applied
  int rank = 0;          // exact 3, compatible 2 (1 by a weaker rule), incompatible 0
};

/// The verdict of `provider` for `requirement` of `package` (a library of `library`).
LibraryVerdict judge_library(const pep::Requirement& requirement, std::string_view package,
                             const easybuild::CudaLibrary& library,
                             const easybuild::LibraryProvider& provider,
                             const ProviderFacts& facts);

}  // namespace wheelmod::resolve
