// The name EasyBuild gives an installation of the PyTorch wheels, in one place for the prefix
// `install` chooses and the easyconfigs `easyconfig` writes: EasyBuildMNS's
// `<name>/<version>-<toolchain>-<toolchain version><versionsuffix>`
// (easybuild/tools/module_naming_scheme/easybuild_mns.py det_full_module_name), with the
// versionsuffix saying which accelerator the wheels were built for.
#pragma once

#include <string>
#include <string_view>

#include "easybuild/config.hpp"
#include "index_client/accelerator.hpp"

namespace wheelmod::emit {

/// The software name of the wheel installations ("PyTorch", as easybuild-easyconfigs names
/// PyTorch easyconfigs).
inline constexpr std::string_view k_wheel_software_name = "PyTorch";

/// "-whl" (CPU), "-CUDA-<version>-whl", "-ROCm-<version>-whl". `version` may be an EasyBuild
/// template ("%(cudaver)s", which an easyconfig writes for the CUDA dependency's version).
std::string wheel_versionsuffix(index_client::AcceleratorKind kind, std::string_view version);

/// "<torch>-<toolchain name>-<toolchain version><versionsuffix>": the module's full version and
/// the installation's directory under <software>/PyTorch/ ("2.6.0-foss-2024a-CUDA-12.6.0-whl").
/// `torch` is the public version (no local label).
std::string wheel_installation_version(std::string_view torch,
                                       const easybuild::Toolchain& toolchain,
                                       std::string_view versionsuffix);

}  // namespace wheelmod::emit
