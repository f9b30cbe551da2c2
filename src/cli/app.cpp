#include "cli/app.hpp"

#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "core/errors.hpp"
#include "core/strings.hpp"
#include "core/suggest.hpp"
#include "core/timings.hpp"
#include "operations/version.hpp"
#include "terminal_stream.hpp"

namespace wheelmod::cli {

namespace {

struct Subcommand {
  CLI::App* app;
  CommandRunner runner;
};

// An error can quote what an index or a wheel said: written through terminal_text too.
void print_error(std::ostream& err, const Error& error) {
  err << terminal_text(error.render()) << std::flush;
}

}  // namespace

void add_format_option(CLI::App& sub, OutputFormat& format, MarkdownOutput markdown) {
  std::map<std::string, OutputFormat> names{{"text", OutputFormat::text},
                                            {"json", OutputFormat::json}};
  if (markdown == MarkdownOutput::yes) names.emplace("markdown", OutputFormat::markdown);
  sub.add_option("--format", format,
                 markdown == MarkdownOutput::yes ? "text, json or markdown (default: text)"
                                                 : "text or json (default: text)")
      ->option_text(markdown == MarkdownOutput::yes ? "text|json|markdown" : "text|json")
      ->transform(CLI::CheckedTransformer(names, CLI::ignore_case));
}

namespace {

// Registers every subcommand on `app`, in the order --help lists them.
std::vector<Subcommand> register_commands(CLI::App& app) {
  std::vector<Subcommand> subcommands;
  for (const auto add :
       {&add_resolve_command, &add_fetch_command, &add_relink_command, &add_install_command,
        &add_check_command, &add_module_command, &add_easyconfig_command, &add_mirror_command,
        &add_swapcheck_command, &add_swap_command, &add_tags_command, &add_config_command,
        &add_list_command, &add_uninstall_command}) {
    const auto before = app.get_subcommands({}).size();
    auto runner = add(app);
    subcommands.push_back({app.get_subcommands({}).at(before), std::move(runner)});
  }
  return subcommands;
}

// The first word on the line that is no option, when it is not a subcommand but near one
// ("resolv" -> "resolve").
std::optional<std::pair<std::optional<std::string>, std::string>> misspelt_subcommand(
    const CLI::App& app, int argc, const char* const* argv) {
  std::vector<std::string> names;
  for (const auto* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.starts_with("-")) continue;
    if (std::ranges::find(names, word) != names.end()) return std::nullopt;
    if (auto name = closest(word, names)) return std::pair{std::optional(word), *name};
    return std::nullopt;
  }
  return std::nullopt;
}

// Parses argv; returns the exit code when that is all there is to do
// (--help, --version). Throws UsageError for a mistake.
std::optional<int> parse(CLI::App& app, int argc, const char* const* argv, std::ostream& out,
                         std::ostream& err) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    // CLI11's own codes (105, 106, ...) are not ours: every usage mistake
    // is exit code 2, with a pointer to the help.
    std::string where = "wheelmod";
    for (const auto* sub : app.get_subcommands()) where += " " + sub->get_name();
    if (where == "wheelmod")
      if (auto suggestion = misspelt_subcommand(app, argc, argv))
        throw UsageError(
            *suggestion->first, "no such subcommand",
            "did you mean '" + suggestion->second + "'? ('wheelmod --help' lists them)");
    throw UsageError("", e.what(), "run '" + where + " --help' for the options");
  }
  return std::nullopt;
}

// --version: the first line as scripts expect it ("wheelmod 0.1.0"), then what a bug report needs.
std::string version_text(const operations::BuildInfo& info) {
  std::string out = "wheelmod " + info.version + "\n";
  out += "commit:    " + info.git_commit + "\n";
  out += "data:      " + info.data_directory + "\n";
  for (const auto& [name, version] : info.libraries)
    out += name + ":" + std::string(name.size() < 10 ? 10 - name.size() : 1, ' ') + version + "\n";
  out.pop_back();  // CLI11 adds the last newline
  return out;
}

}  // namespace

namespace {

int run_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  std::optional<timings::Scope> setup(std::in_place, "cli");
  CLI::App app{
      "wheelmod: PyTorch wheels into EasyBuild-style prefixes, module files and Stage-1 "
      "easyconfigs.",
      "wheelmod"};
  app.set_version_flag("--version", [] { return version_text(operations::build_info()); });
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 success, 1 internal error, 2 usage, 3 nothing satisfies the request, "
      "4 network or file system, 5 integrity, 6 a check failed.");
  bool quiet = false;
  app.add_flag("-q,--quiet", quiet, "Print no progress or warnings (errors still go to stderr)");
  // Global options anywhere on the line (`wheelmod install ... -q`): subcommands created from
  // here on hand options they do not know to the parent.
  app.fallthrough();
  auto subcommands = register_commands(app);

  try {
    if (const auto code = parse(app, argc, argv, out, err)) return *code;
    setup.reset();
    const GlobalOptions global{quiet ? Verbosity::quiet : Verbosity::normal};
    TerminalTextStream shown(out);  // text from an index or a wheel: control bytes escaped
    CommandContext context{shown, err, global};
    for (auto& command : subcommands) {
      if (!command.app->parsed()) continue;
      command.runner(context);
      shown << std::flush;
      return static_cast<int>(ExitCode::success);
    }
    throw UsageError("", "no subcommand given", "run 'wheelmod --help' for the list");
  } catch (const Error& error) {
    print_error(err, error);
    return static_cast<int>(error.code());
  } catch (const std::exception& error) {
    print_error(err, Error(ExitCode::internal, "internal error", error.what(),
                           "this is a bug in wheelmod; please report it with the command line"));
    return static_cast<int>(ExitCode::internal);
  }
}

}  // namespace

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err, StartTimes start) {
  timings::start_main(start.cpu_before_main_ns, start.static_init_ns);
  const int code = run_command(argc, argv, out, err);
  timings::report(err);
  return code;
}

}  // namespace wheelmod::cli
