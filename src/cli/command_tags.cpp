// `wheelmod tags`: the wheel tags a target accepts, best first — the list
// pip would use there (`pip debug --verbose`), so users can see why a wheel
// is or is not chosen.
#include <memory>
#include <ostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "operations/tags.hpp"
#include "terminal_stream.hpp"

namespace wheelmod::cli {

namespace {

struct TagsCommand {
  operations::TagsOptions options;
  OutputFormat format = OutputFormat::text;
};

void print_tags(const TagsCommand& command, CommandContext& context) {
  const auto [target, tags] = operations::tags(command.options);
  if (command.format == OutputFormat::json) {
    nlohmann::json doc;
    doc["python"] = std::to_string(target.python_major) + "." +
                    std::to_string(target.python_minor) + (target.free_threaded ? "t" : "");
    doc["arch"] = target.arch;
    doc["glibc"] = std::to_string(target.glibc.major) + "." + std::to_string(target.glibc.minor);
    auto& list = doc["tags"] = nlohmann::json::array();
    for (const auto& tag : tags) list.push_back(tag.str());
    context.out << json_output(doc);
    return;
  }
  for (const auto& tag : tags) context.out << tag.str() << '\n';
}

}  // namespace

CommandRunner add_tags_command(CLI::App& app) {
  auto command = std::make_shared<TagsCommand>();
  auto& options = command->options;
  auto* sub = app.add_subcommand(
      "tags", "Print the wheel tags a target accepts, best first (as pip would use them)");
  sub->add_option("--python", options.python,
                  "Target CPython as X.Y, or X.Yt for a free-threaded build (default: python3 "
                  "on PATH)");
  sub->add_option("--arch", options.arch, "Target architecture, as uname -m (default: this host)");
  sub->add_option("--glibc", options.glibc, "Target glibc as 2.NN (default: this host)");
  add_format_option(*sub, command->format);
  sub->footer("Example: wheelmod tags --python 3.12 --arch aarch64 --glibc 2.28");
  return [command](CommandContext& context) { print_tags(*command, context); };
}

}  // namespace wheelmod::cli
