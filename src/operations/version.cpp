#include "operations/version.hpp"

#include "core/errors.hpp"
#include "core/files.hpp"
#include "git_commit.hpp"
#include "hash/sha256.hpp"
#include "net/fetcher.hpp"
#include "wheel/installer.hpp"
#include "yaml/cursor.hpp"

namespace wheelmod::operations {

std::string wheelmod_version() { return WHEELMOD_VERSION; }

BuildInfo build_info() {
  BuildInfo info{.version = wheelmod_version(),
                 .git_commit = git_commit(),
                 .data_directory = {},
                 .libraries = {}};
  try {
    const auto data = data_directory();
    info.data_directory = data.path.string() + " (" + data.source + ")";
  } catch (const Error& error) {
    info.data_directory = "not found: " + error.cause();
  }
  info.libraries = {{"libcurl", net::transfer_library_version()},
                    {"libzip", wheel::zip_library_version()},
                    {"OpenSSL", hash::crypto_library_version()},
                    {"yaml-cpp", yaml::yaml_library_version()}};
  return info;
}

}  // namespace wheelmod::operations
