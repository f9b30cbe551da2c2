// `wheelmod check PREFIX`: what operations::check found, as text or JSON;
// exit 6 when something is missing.
#include <memory>
#include <ostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "core/timings.hpp"
#include "operations/check.hpp"
#include "terminal_stream.hpp"

namespace wheelmod::cli {

namespace {

struct CheckCommand {
  operations::CheckOptions options;
  OutputFormat format = OutputFormat::text;
};

nlohmann::json to_json(const prefix::CheckSummary& summary) {
  using nlohmann::json;
  json unresolved = json::array();
  for (const auto& item : summary.unresolved)
    unresolved.push_back({{"file", item.file},
                          {"library", item.library},
                          {"needed_by", item.needed_by},
                          {"problem", item.problem}});
  json misplaced = json::array();
  for (const auto& item : summary.misplaced)
    misplaced.push_back({{"file", item.file},
                         {"library", item.library},
                         {"path", item.path},
                         {"module", item.module}});
  return json{{"schema_version", 1},        {"prefix", summary.prefix.string()},
              {"files", summary.files},     {"passed", summary.passed()},
              {"unresolved", unresolved},   {"misplaced", misplaced},
              {"drivers", summary.drivers}, {"outside", summary.outside}};
}

std::string render_text(const prefix::CheckSummary& summary) {
  std::string out;
  for (const auto& item : summary.unresolved)
    out += "unresolved  " + item.file + ": " + item.library + " " + item.problem +
           (item.needed_by.ends_with(item.file) ? "" : " (needed by " + item.needed_by + ")") +
           "\n";
  for (const auto& item : summary.misplaced)
    out += "misplaced   " + item.file + ": " + item.library + " loads from " + item.path +
           ", not from " + item.module + "\n";
  for (const auto& name : summary.drivers)
    out += "driver      " + name +
           ": absent here, provided by the GPU driver on compute nodes (not a failure)\n";
  for (const auto& path : summary.outside)
    out += "outside     " + path + ": loaded from outside the prefix and the module tree\n";
  out += std::to_string(summary.files) + " ELF files checked: " +
         (summary.files == 0 ? "nothing to resolve"
          : summary.passed() ? "every library resolves"
                             : std::to_string(summary.unresolved.size()) + " unresolved, " +
                                   std::to_string(summary.misplaced.size()) + " misplaced") +
         "\n";
  return out;
}

void run_check(const CheckCommand& command, CommandContext& context) {
  const auto result = operations::check(command.options);
  const timings::Scope phase("output");
  if (result.warning && context.global.verbosity != Verbosity::quiet)
    context.err << "warning: " << *result.warning << '\n';
  if (command.format == OutputFormat::json) {
    auto out = to_json(result.summary);
    if (command.options.modules) {
      out["missing_modules"] = result.missing_modules;
      out["passed"] = result.summary.passed() && result.missing_modules.empty();
      out["module_trees"] = result.module_trees;
    }
    out["rocm_mismatches"] = result.rocm_mismatches;
    if (!result.rocm_mismatches.empty()) out["passed"] = false;
    context.out << json_output(out);
  } else {
    for (const auto& line : result.rocm_mismatches)
      context.out << "rocm        " << line << ": ROCm mismatch\n";
    for (const auto& module : result.missing_modules)
      context.out << "module      " << module << ": loaded by the module file, in no module tree\n";
    context.out << render_text(result.summary);
  }
  context.out << std::flush;
  if (result.failure) throw *result.failure;
}

}  // namespace

CommandRunner add_check_command(CLI::App& app) {
  auto command = std::make_shared<CheckCommand>();
  auto& options = command->options;
  auto* sub = app.add_subcommand(
      "check",
      "Resolve every library of a prefix the way ld.so does, without LD_LIBRARY_PATH; exit 6 "
      "when one is missing");
  sub->add_option("PREFIX", options.prefix, "The installation prefix")->required();
  sub->add_option("--allow", options.allowed,
                  "A directory whose libraries are expected (the EasyBuild installpath; "
                  "repeatable); others outside the prefix and the system are listed");
  sub->add_flag("--modules", options.modules,
                "Also check that every module the installation's module file loads is installed "
                "(in --modulepath, else <installpath>/modules beside software/, and $MODULEPATH)");
  sub->add_option("--modulepath", options.modulepath,
                  "The module tree --modules looks in, besides $MODULEPATH");
  sub->add_flag("--strict", options.strict,
                "A prefix with no ELF file fails (exit 6) instead of a warning");
  sub->add_flag("--use-ld-library-path", options.use_ld_library_path,
                "Search LD_LIBRARY_PATH as set now (default: as a module without one)");
  add_format_option(*sub, command->format);
  sub->footer("Example: wheelmod check /apps/eb/software/PyTorch/2.6.0-foss-2024a-CUDA-12.6.0-whl");
  return [command](CommandContext& context) { run_check(*command, context); };
}

}  // namespace wheelmod::cli
