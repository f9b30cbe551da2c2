// `wheelmod module` (being written).
#include <memory>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "core/errors.hpp"

namespace wheelmod::cli {

CommandRunner add_module_command(CLI::App& app) {
  app.add_subcommand("module", "(not yet available)");
  return [](CommandContext&) { throw UsageError("module", "not yet available"); };
}

}  // namespace wheelmod::cli
