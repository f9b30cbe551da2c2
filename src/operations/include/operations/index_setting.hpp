// The index wheelmod reads when --index is not given, configured once for a site or a user, as
// pip (PIP_INDEX_URL, pip.conf) and uv (UV_INDEX_URL, uv.toml) configure theirs:
//   --index, else $WHEELMOD_INDEX_URL, else the `index` key of wheelmod's configuration file,
//   else https://download.pytorch.org/whl.
// wheelmod's configuration file is YAML: $WHEELMOD_CONFIG_FILE alone when it is set (as
// UV_CONFIG_FILE), else $XDG_CONFIG_HOME/wheelmod/config.yaml (~/.config) over each
// $XDG_CONFIG_DIRS entry's wheelmod/config.yaml (/etc/xdg) over /etc/wheelmod/config.yaml, the
// first that sets a key winning.
#pragma once

#include <string>
#include <vector>

#include "easybuild/eb_settings.hpp"

namespace wheelmod::operations {

/// The index in effect and where it came from ("--index", "$WHEELMOD_INDEX_URL",
/// "/etc/wheelmod/config.yaml:3", "the default").
struct IndexSetting {
  std::string url;
  std::string origin;
};

/// The configuration files wheelmod reads, highest priority first, those that exist.
std::vector<std::string> config_files(
    const easybuild::Getenv& getenv = easybuild::process_environment());

/// `given` (--index, "" when not given), else the environment, else the configuration files,
/// else the default. Throws UsageError (exit 2) for a configuration file that cannot be read,
/// is not YAML, has a key wheelmod does not know, or an `index` that is not an http(s) URL, a
/// file:///absolute URL or an absolute path, naming file:line:column.
IndexSetting index_setting(const std::string& given,
                           const easybuild::Getenv& getenv = easybuild::process_environment());

}  // namespace wheelmod::operations
