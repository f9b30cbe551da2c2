// The EasyBuild configuration `eb` itself would use, read the way easybuild-framework reads it
// (easybuild/tools/options.py, config.py; docs.easybuild.io/configuration): configuration files,
// then EASYBUILD_* environment variables over them; wheelmod's own options win over both.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/environment.hpp"

namespace wheelmod::easybuild {

/// One setting and where it came from ("$EASYBUILD_INSTALLPATH",
/// "/etc/xdg/easybuild.d/site.cfg [config]", "EasyBuild's default").
struct Setting {
  std::string value;
  std::string origin;
};

using Getenv = wheelmod::Getenv;  // core/environment.hpp
using wheelmod::process_environment;

class EasyBuildSettings {
 public:
  /// Reads the configuration files (EASYBUILD_CONFIGFILES, comma-separated, when set; else
  /// every `easybuild.d/*.cfg` of the $XDG_CONFIG_DIRS entries (default /etc/xdg), the first
  /// entry winning, then $XDG_CONFIG_HOME/easybuild/config.cfg (default ~/.config) over them),
  /// then the EASYBUILD_<OPTION> variables over the files. Options are named as `eb` names them
  /// (`installpath-software`); files are INI with any section. Throws UsageError (exit 2) for a
  /// configuration file that cannot be read or parsed, naming file and line.
  static EasyBuildSettings read(const Getenv& getenv);

  /// The setting of `option` ("installpath"), or nullopt when neither a file nor the
  /// environment sets it.
  [[nodiscard]] std::optional<Setting> get(std::string_view option) const;

  /// EasyBuild's install_path(): `installpath-software` (`-modules`), else
  /// `<installpath>/software` (`/modules`); installpath defaults to `<prefix>` and that to
  /// ~/.local/easybuild (easybuild/tools/config.py DEFAULT_PREFIX).
  [[nodiscard]] Setting software_path() const;
  [[nodiscard]] Setting modules_path() const;
  /// easybuild/tools/filetools.py det_lock_path: `locks-dir`, else `<software path>/.locks`.
  [[nodiscard]] Setting locks_dir() const;

  /// The configuration files read, in the order they were applied.
  [[nodiscard]] const std::vector<std::string>& files() const { return m_files; }

 private:
  std::map<std::string, Setting, std::less<>> m_settings;
  std::vector<std::string> m_files;
  std::string m_home;
};

/// Parses one EasyBuild configuration file's text: `[section]` headers, `key = value` or
/// `key: value`, `#`/`;` comments; keys lower-cased with `_` as `-`. nullopt + `error` ("line 3:
/// ...") on a line that is none of these.
std::optional<std::map<std::string, std::pair<std::string, std::string>>> parse_config_file(
    std::string_view text, std::string& error);

}  // namespace wheelmod::easybuild
