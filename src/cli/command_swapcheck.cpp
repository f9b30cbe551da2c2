// `wheelmod swapcheck --current A --candidate B --dependents DIR...`: the
// options of operations::swapcheck, and each dependent's verdict with its
// reasons as text, Markdown or JSON.
#include <iomanip>
#include <memory>
#include <ostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "operations/swap.hpp"

namespace wheelmod::cli {

namespace {

struct SwapcheckCommand {
  operations::SwapcheckOptions options;
  OutputFormat format = OutputFormat::text;
};

// Symbols named per reason in text and markdown; --format json lists all.
constexpr std::size_t k_symbols_shown = 3;

std::string abi_text(const std::optional<bool>& abi) {
  return abi ? (*abi ? "1" : "0") : "unknown";
}

std::string torch_line(const swap::TorchInstall& torch) {
  return "torch " + (torch.version.empty() ? std::string("(no version)") : torch.version) +
         ", _GLIBCXX_USE_CXX11_ABI=" + abi_text(torch.cxx11_abi) +
         (torch.cuda_major   ? ", CUDA " + std::to_string(*torch.cuda_major)
          : torch.rocm_major ? ", ROCm " + std::to_string(*torch.rocm_major)
          : torch.rocm       ? ", ROCm"
                             : ", no CUDA") +
         ", " + std::to_string(torch.exports.size()) + " exported symbols (" +
         torch.prefix.string() + ")";
}

nlohmann::json torch_json(const swap::TorchInstall& t) {
  nlohmann::json out{{"prefix", t.prefix.string()},
                     {"version", t.version},
                     {"exported_symbols", t.exports.size()}};
  out["cxx11_abi"] = t.cxx11_abi ? nlohmann::json(*t.cxx11_abi) : nlohmann::json(nullptr);
  out["cuda_major"] = t.cuda_major ? nlohmann::json(*t.cuda_major) : nlohmann::json(nullptr);
  return out;
}

nlohmann::json dependent_json(const swap::DependentResult& d) {
  nlohmann::json reasons = nlohmann::json::array();
  for (const auto& r : d.reasons) {
    nlohmann::json reason{{"kind", r.kind}, {"file", r.file}, {"detail", r.detail}};
    if (!r.symbols.empty()) reason["symbols"] = r.symbols;
    reasons.push_back(std::move(reason));
  }
  return {{"prefix", d.prefix.string()},
          {"projects", d.projects},
          {"verdict", std::string(swap::verdict_text(d.verdict))},
          {"stable_abi", d.stable_abi},
          {"elf_files", d.elf_files},
          {"torch_imports", d.torch_imports},
          {"fixed", d.fixed},
          {"reasons", std::move(reasons)}};
}

// `value` pretty-printed as a member at `depth` of the document (two spaces a level).
std::string nested(const nlohmann::json& value, int depth) {
  // ASCII-only, a byte that is not UTF-8 as U+FFFD, as every command's JSON (json_output).
  std::string text = value.dump(2, ' ', true, nlohmann::json::error_handler_t::replace);
  const std::string indent(static_cast<std::size_t>(2 * depth), ' ');
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    out += c;
    if (c == '\n') out += indent;  // JSON strings hold no raw newline
  }
  return out;
}

// The report as one JSON object, as nlohmann would pretty-print it (keys in order), written one
// dependent at a time: with every undefined symbol listed, 200 dependents make ~50 MB of JSON,
// whose DOM took 4-5 times that in memory.
void write_json(const swap::SwapcheckReport& report, std::ostream& out) {
  out << "{\n  \"candidate\": " << nested(torch_json(report.candidate), 1)
      << ",\n  \"current\": " << nested(torch_json(report.current), 1) << ",\n  \"dependents\": ";
  if (report.dependents.empty()) {
    out << "[]";
  } else {
    out << "[";
    for (std::size_t i = 0; i < report.dependents.size(); ++i)
      out << (i == 0 ? "\n    " : ",\n    ") << nested(dependent_json(report.dependents[i]), 2);
    out << "\n  ]";
  }
  out << ",\n  \"ok\": " << (report.ok() ? "true" : "false") << ",\n  \"schema_version\": 1\n}\n";
}

void render(const swap::SwapcheckReport& report, bool markdown, std::ostream& out) {
  out << (markdown ? "**current:** " : "current:   ") << torch_line(report.current) << "\n";
  out << (markdown ? "**candidate:** " : "candidate: ") << torch_line(report.candidate) << "\n\n";
  if (markdown) out << "| dependent | verdict | why |\n|---|---|---|\n";
  for (const auto& d : report.dependents) {
    std::string name = d.projects.empty() ? d.prefix.filename().string() : d.projects.front();
    for (std::size_t i = 1; i < d.projects.size(); ++i) name += ", " + d.projects[i];
    std::string verdict(swap::verdict_text(d.verdict));
    if (d.stable_abi) verdict += " (stable C ABI only)";
    if (d.fixed) verdict += " (RPATH fixed)";
    if (markdown) {
      std::string why;
      for (const auto& r : d.reasons)
        why += (why.empty() ? "" : "<br>") + r.kind + ": " + swap::describe(r, k_symbols_shown);
      out << "| " << name << " | " << verdict << " | " << why << " |\n";
      continue;
    }
    out << verdict << "  " << name << "  (" << d.prefix.string() << ")\n";
    for (const auto& r : d.reasons)
      out << "    " << r.kind << ": " << swap::describe(r, k_symbols_shown)
          << (r.file.empty() ? "" : "  [" + r.file + "]") << "\n";
  }
  std::size_t bad = 0, broken = 0, unknown = 0;
  for (const auto& d : report.dependents) {
    bad += d.verdict == swap::Verdict::breaks || d.verdict == swap::Verdict::relink_needed;
    broken += d.verdict == swap::Verdict::broken_now;
    unknown += d.verdict == swap::Verdict::unknown;
  }
  out << (markdown ? "\n" : "") << report.dependents.size() << " dependents, " << bad
      << (bad == 1 ? " does not survive" : " do not survive") << " the swap as they are";
  // Broken now is no verdict on the swap: those do not load with the current torch either.
  if (broken > 0) out << ", " << broken << " broken now (not loadable with the current torch)";
  if (unknown > 0) out << ", " << unknown << " unknown (the candidate's version is unknown)";
  out << "\n";
}

void run_swapcheck(const SwapcheckCommand& command, CommandContext& context) {
  const auto result = operations::swapcheck(command.options);
  if (command.format == OutputFormat::json)
    write_json(result.report, context.out);
  else
    render(result.report, command.format == OutputFormat::markdown, context.out);
  if (result.failure) throw *result.failure;
}

}  // namespace

CommandRunner add_swapcheck_command(CLI::App& app) {
  auto command = std::make_shared<SwapcheckCommand>();
  auto& options = command->options;
  auto* sub = app.add_subcommand(
      "swapcheck", "Tell which installed packages survive replacing one torch with another");
  sub->add_option("--current", options.current,
                  "The torch the dependents were installed on: an installation prefix (also a "
                  "distribution's /usr), a site-packages, the torch directory, or an EasyBuild "
                  "module name under the site's software path")
      ->required();
  sub->add_option("--candidate", options.candidate,
                  "The torch that would replace it (the same forms)")
      ->required();
  sub->add_option("--dependents", options.dependents,
                  "Install prefixes, or an EasyBuild software/ tree to scan (repeatable)")
      ->required();
  sub->add_flag("--fix", options.fix,
                "Re-point RPATH entries into the current prefix at the candidate, for dependents "
                "that are otherwise compatible");
  add_format_option(*sub, command->format, MarkdownOutput::yes);
  sub->footer(
      "Example: wheelmod swapcheck --current OLD_PREFIX --candidate NEW_PREFIX --dependents "
      "/apps/eb/software");
  return [command](CommandContext& context) { run_swapcheck(*command, context); };
}

}  // namespace wheelmod::cli
