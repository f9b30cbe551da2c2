// `wheelmod check PREFIX`: every ELF file of a prefix resolved the way
// ld.so would, without LD_LIBRARY_PATH; exit 6 when something is missing.
#include <memory>
#include <ostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "prefix/check.hpp"

namespace wheelmod::cli {

namespace {

struct CheckCommandOptions {
  std::string prefix;
  std::vector<std::string> allowed;
  bool use_ld_library_path = false;
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
  return json{{"schema_version", 1},       {"prefix", summary.prefix.string()},
              {"files", summary.files},    {"passed", summary.passed()},
              {"unresolved", unresolved},  {"drivers", summary.drivers},
              {"outside", summary.outside}};
}

std::string render_text(const prefix::CheckSummary& summary) {
  std::string out;
  for (const auto& item : summary.unresolved)
    out += "unresolved  " + item.file + ": " + item.library + " " + item.problem +
           (item.needed_by.ends_with(item.file) ? "" : " (needed by " + item.needed_by + ")") +
           "\n";
  for (const auto& name : summary.drivers)
    out += "driver      " + name +
           ": absent here, provided by the GPU driver on compute nodes (not a failure)\n";
  for (const auto& path : summary.outside)
    out += "outside     " + path + ": loaded from outside the prefix and the module tree\n";
  out += std::to_string(summary.files) + " ELF files checked: " +
         (summary.passed() ? "every library resolves"
                           : std::to_string(summary.unresolved.size()) + " unresolved") +
         "\n";
  return out;
}

void run_check(const CheckCommandOptions& options, CommandContext& context) {
  prefix::CheckOptions check;
  check.use_ld_library_path = options.use_ld_library_path;
  for (const auto& root : options.allowed) check.allowed_roots.emplace_back(root);
  const auto summary = prefix::check_prefix(options.prefix, check);
  if (options.format == OutputFormat::json)
    context.out << to_json(summary).dump(2) << '\n';
  else
    context.out << render_text(summary);
  context.out << std::flush;
  if (!summary.passed()) prefix::throw_check_failure(summary);
}

}  // namespace

CommandRunner add_check_command(CLI::App& app) {
  auto options = std::make_shared<CheckCommandOptions>();
  auto* sub = app.add_subcommand(
      "check",
      "Resolve every library of a prefix the way ld.so does, without LD_LIBRARY_PATH; exit 6 "
      "when one is missing");
  sub->add_option("PREFIX", options->prefix, "The installation prefix")->required();
  sub->add_option("--allow", options->allowed,
                  "A directory whose libraries are expected (the EasyBuild installpath; "
                  "repeatable); others outside the prefix and the system are listed");
  sub->add_flag("--use-ld-library-path", options->use_ld_library_path,
                "Search LD_LIBRARY_PATH as set now (default: as a module without one)");
  add_format_option(*sub, options->format);
  return [options](CommandContext& context) { run_check(*options, context); };
}

}  // namespace wheelmod::cli
