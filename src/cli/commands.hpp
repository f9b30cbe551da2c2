// What every subcommand gets, and how each one registers itself.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>

#include "progress.hpp"

namespace CLI {
class App;
}

namespace wheelmod::cli {

enum class OutputFormat { text, json, markdown };

enum class MarkdownOutput { no, yes };
/// Registers `--format text|json` (and `markdown` when asked), case-insensitive.
void add_format_option(CLI::App& sub, OutputFormat& format,
                       MarkdownOutput markdown = MarkdownOutput::no);

/// Options that belong to wheelmod as a whole.
struct GlobalOptions {
  Verbosity verbosity = Verbosity::normal;
};

/// Where a command writes: data to `out` (stdout), messages to `err`.
struct CommandContext {
  std::ostream& out;
  std::ostream& err;
  const GlobalOptions& global;
};

/// Runs the parsed command; throws wheelmod::Error on failure.
using CommandRunner = std::function<void(CommandContext&)>;

/// Each add_* registers a subcommand on `app` and returns what runs it once
/// its options are parsed.
CommandRunner add_tags_command(CLI::App& app);
CommandRunner add_config_command(CLI::App& app);
CommandRunner add_list_command(CLI::App& app);
CommandRunner add_uninstall_command(CLI::App& app);
CommandRunner add_resolve_command(CLI::App& app);
CommandRunner add_fetch_command(CLI::App& app);
CommandRunner add_relink_command(CLI::App& app);
CommandRunner add_install_command(CLI::App& app);
CommandRunner add_check_command(CLI::App& app);
CommandRunner add_module_command(CLI::App& app);
CommandRunner add_easyconfig_command(CLI::App& app);
CommandRunner add_mirror_command(CLI::App& app);
CommandRunner add_swapcheck_command(CLI::App& app);
CommandRunner add_swap_command(CLI::App& app);

}  // namespace wheelmod::cli
