// `wheelmod swapcheck --current A --candidate B --dependents DIR...`: for
// every package installed on top of torch A, whether it survives a swap to
// torch B (safe, compatible, relink needed, breaks — with every reason);
// --fix re-points RPATH entries into A at B where that is all it takes.
#include <iomanip>
#include <memory>
#include <ostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "core/errors.hpp"
#include "swap/swapcheck.hpp"

namespace wheelmod::cli {

namespace {

namespace fs = std::filesystem;

struct SwapcheckOptions {
  std::string current;
  std::string candidate;
  std::vector<std::string> dependents;
  bool fix = false;
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
         (torch.cuda_major ? ", CUDA " + std::to_string(*torch.cuda_major)
          : torch.rocm     ? ", ROCm"
                           : ", no CUDA") +
         ", " + std::to_string(torch.exports.size()) + " exported symbols (" +
         torch.prefix.string() + ")";
}

nlohmann::json to_json(const swap::SwapcheckReport& report) {
  const auto torch = [](const swap::TorchInstall& t) {
    nlohmann::json out{{"prefix", t.prefix.string()},
                       {"version", t.version},
                       {"exported_symbols", t.exports.size()}};
    out["cxx11_abi"] = t.cxx11_abi ? nlohmann::json(*t.cxx11_abi) : nlohmann::json(nullptr);
    out["cuda_major"] = t.cuda_major ? nlohmann::json(*t.cuda_major) : nlohmann::json(nullptr);
    return out;
  };
  nlohmann::json dependents = nlohmann::json::array();
  for (const auto& d : report.dependents) {
    nlohmann::json reasons = nlohmann::json::array();
    for (const auto& r : d.reasons) {
      nlohmann::json reason{{"kind", r.kind}, {"file", r.file}, {"detail", r.detail}};
      if (!r.symbols.empty()) reason["symbols"] = r.symbols;
      reasons.push_back(std::move(reason));
    }
    dependents.push_back({{"prefix", d.prefix.string()},
                          {"projects", d.projects},
                          {"verdict", std::string(swap::verdict_text(d.verdict))},
                          {"stable_abi", d.stable_abi},
                          {"elf_files", d.elf_files},
                          {"torch_imports", d.torch_imports},
                          {"fixed", d.fixed},
                          {"reasons", reasons}});
  }
  return {{"schema_version", 1},
          {"current", torch(report.current)},
          {"candidate", torch(report.candidate)},
          {"dependents", dependents},
          {"ok", report.ok()}};
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
  std::size_t bad = 0;
  for (const auto& d : report.dependents)
    if (d.verdict == swap::Verdict::breaks || d.verdict == swap::Verdict::relink_needed) ++bad;
  out << (markdown ? "\n" : "") << report.dependents.size() << " dependents, " << bad
      << (bad == 1 ? " does not survive" : " do not survive") << " the swap as they are\n";
}

void run_swapcheck(const SwapcheckOptions& options, CommandContext& context) {
  std::vector<fs::path> roots(options.dependents.begin(), options.dependents.end());
  const std::set<fs::path> skip{fs::absolute(options.current).lexically_normal(),
                                fs::absolute(options.candidate).lexically_normal()};
  const auto dependents = swap::find_dependents(roots, skip);
  const auto report = swap::swapcheck(options.current, options.candidate, dependents,
                                      options.fix ? swap::FixRpath::yes : swap::FixRpath::no);
  if (options.format == OutputFormat::json)
    context.out << std::setw(2) << to_json(report) << '\n';  // streamed, not built as one string
  else
    render(report, options.format == OutputFormat::markdown, context.out);
  if (!report.ok())
    throw CheckFailedError("swapcheck", "some dependents would break or load the old torch",
                           "see the reasons above; --fix re-points RPATH entries into the current "
                           "prefix for dependents that are otherwise compatible");
}

}  // namespace

CommandRunner add_swapcheck_command(CLI::App& app) {
  auto options = std::make_shared<SwapcheckOptions>();
  auto* sub = app.add_subcommand(
      "swapcheck", "Tell which installed packages survive replacing one torch with another");
  sub->add_option("--current", options->current,
                  "Prefix of the torch the dependents were installed on")
      ->required();
  sub->add_option("--candidate", options->candidate, "Prefix of the torch that would replace it")
      ->required();
  sub->add_option("--dependents", options->dependents,
                  "Install prefixes, or an EasyBuild software/ tree to scan (repeatable)")
      ->required();
  sub->add_flag("--fix", options->fix,
                "Re-point RPATH entries into the current prefix at the candidate, for dependents "
                "that are otherwise compatible");
  add_format_option(*sub, options->format, MarkdownOutput::yes);
  return [options](CommandContext& context) { run_swapcheck(*options, context); };
}

}  // namespace wheelmod::cli
