// The wheelmod command line: builds the CLI11 application, dispatches to
// the subcommands, and maps every error to its exit code in one place.
#pragma once

#include <iosfwd>

namespace wheelmod::cli {

/// Runs wheelmod with `argv`, writing data to `out` and messages to `err`.
/// Returns the process exit code (DESIGN.md "Exit codes"). Never throws.
int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace wheelmod::cli
