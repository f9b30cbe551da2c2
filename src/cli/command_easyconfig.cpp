// `wheelmod easyconfig` (being written).
#include <memory>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "core/errors.hpp"

namespace wheelmod::cli {

CommandRunner add_easyconfig_command(CLI::App& app) {
  app.add_subcommand("easyconfig", "(not yet available)");
  return [](CommandContext&) { throw UsageError("easyconfig", "not yet available"); };
}

}  // namespace wheelmod::cli
