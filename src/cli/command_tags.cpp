// `wheelmod tags`: the wheel tags a target accepts, best first — the list
// pip would use there (`pip debug --verbose`), so users can see why a wheel
// is or is not chosen.
#include <memory>
#include <ostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/host.hpp"
#include "core/errors.hpp"
#include "pep/tags.hpp"

namespace wheelmod::cli {

namespace {

struct TagsOptions {
  std::string python;
  std::string arch;
  std::string glibc;
  OutputFormat format = OutputFormat::text;
};

pep::TagTarget target_from(const TagsOptions& options) {
  const auto arch = options.arch.empty() ? host_arch() : options.arch;
  if (!is_known_arch(arch))
    throw UsageError("--arch " + arch, "unknown architecture",
                     "use one of: " + known_arches_text());
  pep::GlibcVersion glibc = host_glibc();
  if (!options.glibc.empty()) {
    const auto parsed = pep::GlibcVersion::parse(options.glibc);
    if (!parsed)
      throw UsageError(
          "--glibc " + options.glibc, parsed.error().message,
          "give the glibc version as 2.NN, e.g. --glibc 2.28 (ldd --version shows it)");
    glibc = *parsed;
  }
  const auto python = options.python.empty() ? host_python() : options.python;
  auto target = pep::TagTarget::with_python(python, arch, glibc);
  if (!target)
    throw UsageError("--python " + python, target.error().message,
                     "give the Python version as X.Y, e.g. --python 3.12 (or 3.13t)");
  return *target;
}

void print_tags(const TagsOptions& options, CommandContext& context) {
  const auto target = target_from(options);
  const auto tags = pep::supported_tags(target);
  if (options.format == OutputFormat::json) {
    nlohmann::json doc;
    doc["python"] = std::to_string(target.python_major) + "." +
                    std::to_string(target.python_minor) + (target.free_threaded ? "t" : "");
    doc["arch"] = target.arch;
    doc["glibc"] = std::to_string(target.glibc.major) + "." + std::to_string(target.glibc.minor);
    auto& list = doc["tags"] = nlohmann::json::array();
    for (const auto& tag : tags) list.push_back(tag.str());
    context.out << doc.dump(2) << '\n';
    return;
  }
  for (const auto& tag : tags) context.out << tag.str() << '\n';
}

}  // namespace

CommandRunner add_tags_command(CLI::App& app) {
  auto options = std::make_shared<TagsOptions>();
  auto* sub = app.add_subcommand(
      "tags", "Print the wheel tags a target accepts, best first (as pip would use them)");
  sub->add_option("--python", options->python,
                  "Target CPython as X.Y, or X.Yt for a free-threaded build (default: python3 "
                  "on PATH)");
  sub->add_option("--arch", options->arch, "Target architecture, as uname -m (default: this host)");
  sub->add_option("--glibc", options->glibc, "Target glibc as 2.NN (default: this host)");
  add_format_option(*sub, options->format);
  return [options](CommandContext& context) { print_tags(*options, context); };
}

}  // namespace wheelmod::cli
