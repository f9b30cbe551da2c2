// `wheelmod config`: the settings in effect and where each came from, as `eb --show-config`
// shows EasyBuild's: the EasyBuild configuration wheelmod reads (site.hpp), its own data
// directory, cache and default index.
#include <memory>
#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "core/errors.hpp"
#include "core/files.hpp"
#include "core/url.hpp"
#include "operations/index_setting.hpp"
#include "operations/selection.hpp"
#include "operations/site.hpp"
#include "terminal_stream.hpp"

namespace wheelmod::cli {

namespace {

struct ConfigCommand {
  std::string eb_installpath;
  std::string cache_dir;
  OutputFormat format = OutputFormat::text;
};

struct Row {
  std::string name;
  std::string value;
  std::string origin;
};

std::vector<Row> rows(const ConfigCommand& command) {
  const auto site = operations::site_settings(command.eb_installpath);
  const auto setting = [](const std::string& name, const std::optional<easybuild::Setting>& value,
                          const std::string& fallback) {
    return value ? Row{name, value->value, value->origin}
                 : Row{name, fallback, "EasyBuild's default"};
  };
  std::vector<Row> out{
      {"software path", site.software.value, site.software.origin},
      {"modules path", site.modules.value, site.modules.origin},
      {"locks", site.locks.value, site.locks.origin},
      {"wait on lock", std::to_string(site.lock_wait.limit_seconds) + " s", "wait-on-lock-limit"},
      setting("module syntax", site.module_syntax, "Lua"),
      setting("module naming scheme", site.naming_scheme, "EasyBuildMNS"),
      setting("suffix modules path", site.suffix_modules_path, "all"),
  };
  std::string files;
  for (const auto& file : site.files) files += (files.empty() ? "" : ", ") + file;
  out.push_back({"EasyBuild config files", files.empty() ? "(none)" : files, "eb's search order"});
  try {
    const auto data = data_directory();
    out.push_back({"wheelmod data", data.path.string(), data.source});
  } catch (const Error& error) {
    out.push_back({"wheelmod data", "(not found)", error.cause()});
  }
  const auto cache = operations::cache_dir_or_default(command.cache_dir);
  out.push_back(
      {"cache", cache, command.cache_dir.empty() ? "$XDG_CACHE_HOME or ~/.cache" : "--cache-dir"});
  std::string config_files;
  for (const auto& file : operations::config_files())
    config_files += (config_files.empty() ? "" : ", ") + file;
  out.push_back({"wheelmod config files", config_files.empty() ? "(none)" : config_files,
                 "$WHEELMOD_CONFIG_FILE, else ~/.config, $XDG_CONFIG_DIRS, /etc/wheelmod"});
  const auto index = operations::index_setting("");
  out.push_back({"index", mask_credentials(index.url), index.origin});
  return out;
}

void print_config(const ConfigCommand& command, CommandContext& context) {
  const auto table = rows(command);
  if (command.format == OutputFormat::json) {
    nlohmann::json doc = nlohmann::json::object();
    for (const auto& row : table) doc[row.name] = {{"value", row.value}, {"origin", row.origin}};
    context.out << json_output(doc);
    return;
  }
  for (const auto& row : table)
    context.out << fmt::format("{:<24}{}  ({})\n", row.name, row.value, row.origin);
}

}  // namespace

CommandRunner add_config_command(CLI::App& app) {
  auto command = std::make_shared<ConfigCommand>();
  auto* sub = app.add_subcommand(
      "config",
      "Show the settings in effect and where each comes from: EasyBuild's (as eb reads them: "
      "EASYBUILD_* variables over its config files) and wheelmod's own");
  sub->add_option("--eb-installpath", command->eb_installpath,
                  "As install and relink take it: overrides EasyBuild's installpath");
  sub->add_option("--cache-dir", command->cache_dir, "As the other commands take it");
  add_format_option(*sub, command->format);
  sub->footer("Example: EASYBUILD_INSTALLPATH=/apps/eb wheelmod config");
  return [command](CommandContext& context) { print_config(*command, context); };
}

}  // namespace wheelmod::cli
