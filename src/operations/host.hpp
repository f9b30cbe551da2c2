// Facts about the machine wheelmod runs on, used as defaults when the user
// does not name a target (--python, --arch, --glibc).
#pragma once

#include <optional>
#include <string>

#include "pep/tags.hpp"

namespace wheelmod::operations {

/// uname -m (x86_64, aarch64, ...).
std::string host_arch();
/// The running glibc (gnu_get_libc_version).
pep::GlibcVersion host_glibc();
/// "3.12" (or "3.13t" for a free-threaded build) of `python3` on PATH, as
/// pip would run there. Throws UsageError when there is none.
std::string host_python();

/// The running NVIDIA driver's version from /proc/driver/nvidia/version (the kernel module's
/// report, as uv reads it in crates/uv-torch/src/accelerator.rs); nullopt without one.
std::optional<std::string> host_nvidia_driver();

/// Architectures wheelmod knows wheel tags for; `--arch` accepts these.
bool is_known_arch(std::string_view arch);
std::string known_arches_text();

}  // namespace wheelmod::operations
