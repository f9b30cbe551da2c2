#include "emit/installation_name.hpp"

namespace wheelmod::emit {

std::string wheel_versionsuffix(index_client::AcceleratorKind kind, std::string_view version) {
  switch (kind) {
    case index_client::AcceleratorKind::cuda:
      return "-CUDA-" + std::string(version) + "-whl";
    case index_client::AcceleratorKind::rocm:
      return "-ROCm-" + std::string(version) + "-whl";
    case index_client::AcceleratorKind::cpu:
      break;
  }
  return "-whl";
}

std::string wheel_installation_version(std::string_view torch,
                                       const easybuild::Toolchain& toolchain,
                                       std::string_view versionsuffix) {
  return std::string(torch) + "-" + toolchain.name + "-" + toolchain.version +
         std::string(versionsuffix);
}

}  // namespace wheelmod::emit
