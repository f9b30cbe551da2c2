#include "host.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>

#include <gnu/libc-version.h>
#include <sys/utsname.h>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "index_client/accelerator.hpp"

namespace wheelmod::operations {

namespace {
// uname -m values of the Linux architectures with manylinux wheels
// (PEP 599 / PEP 600 list x86_64, i686, aarch64, ppc64le, s390x, armv7l).
constexpr std::array<std::string_view, 7> k_arches = {"x86_64", "aarch64", "ppc64le", "s390x",
                                                      "i686",   "armv7l",  "riscv64"};
}  // namespace

bool is_known_arch(std::string_view arch) {
  return std::find(k_arches.begin(), k_arches.end(), arch) != k_arches.end();
}

std::string known_arches_text() {
  std::string out;
  for (const auto arch : k_arches) {
    if (!out.empty()) out += ", ";
    out += arch;
  }
  return out;
}

std::optional<std::string> host_nvidia_driver() {
  try {
    const auto text = read_file_if_exists("/proc/driver/nvidia/version");
    if (!text) return std::nullopt;
    return index_client::parse_nvidia_driver_version(*text);
  } catch (const IoError&) {
    return std::nullopt;  // unreadable: treated as no driver, as on a login node
  }
}

std::string host_arch() {
  utsname name{};
  if (::uname(&name) != 0) return "x86_64";
  return name.machine;
}

pep::GlibcVersion host_glibc() {
  const auto parsed = pep::GlibcVersion::parse(::gnu_get_libc_version());
  return parsed ? *parsed : pep::GlibcVersion{};
}

std::string host_python() {
  // The interpreter pip would use here. Py_GIL_DISABLED marks a
  // free-threaded build (PEP 703), whose ABI tag gets a `t`.
  static constexpr const char* k_probe =
      "python3 -c 'import sys, sysconfig; "
      "print(\"%d.%d%s\" % (sys.version_info[0], sys.version_info[1], "
      "\"t\" if sysconfig.get_config_var(\"Py_GIL_DISABLED\") else \"\"))' 2>/dev/null";
  const std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(k_probe, "r"), ::pclose);
  std::string out;
  if (pipe) {
    std::array<char, 64> buffer{};
    while (std::fgets(buffer.data(), static_cast<int>(buffer.size()), pipe.get()) != nullptr)
      out += buffer.data();
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  if (out.empty())
    throw UsageError("--python",
                     "cannot tell this host's Python version: no working python3 on PATH",
                     "name the target with --python X.Y (e.g. --python 3.12)");
  return out;
}

}  // namespace wheelmod::operations
