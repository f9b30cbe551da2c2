#include "report_render.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join (only here since fmt 11)

#include "core/errors.hpp"
#include "core/url.hpp"
#include "progress.hpp"

namespace wheelmod::cli {

using resolve::Compatibility;
using resolve::Dependency;
using resolve::DependencyResolution;
using resolve::ResolveReport;

namespace {

std::string target_line(const ResolveReport& r) {
  const auto& t = r.target;
  std::string out = t.toolchain ? "toolchain " + *t.toolchain + " (" + *t.generation + "), " : "";
  return out + fmt::format("Python {} ({}), {}, glibc {}, accelerator {} ({})", t.python,
                           t.python_source, t.arch, t.glibc, t.accelerator, t.accelerator_source);
}

std::string provider_text(const Dependency& d) {
  switch (d.resolution) {
    case DependencyResolution::chosen_wheel:
      return "wheel " + d.provider;
    case DependencyResolution::eb_module:
      return "module " + d.provider + (d.provided_version ? " (" + *d.provided_version + ")" : "") +
             (d.module_source.empty() ? "" : ", " + d.module_source);
    case DependencyResolution::bundled_wheel:
      return "bundled " + d.provider;
    case DependencyResolution::missing:
      return "MISSING";
  }
  return "";
}

std::string verdict_text(const Dependency& d) {
  if (d.resolution == DependencyResolution::missing) return d.note;
  std::string out(resolve::compatibility_text(d.compatibility));
  if (!d.note.empty() && d.note != "exact") out += ": " + d.note;
  return out;
}

// The requirement without its marker: markers are already evaluated for
// the target, and the JSON report keeps the whole text.
std::string requirement_text(const Dependency& d) {
  const auto semicolon = d.requirement.find(';');
  auto text = d.requirement.substr(0, semicolon);
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

std::string size_text(const std::optional<std::uint64_t>& size) {
  return size ? format_bytes(*size) : "unknown until download";
}

}  // namespace

std::string render_text(const ResolveReport& r) {
  std::string out;
  out += "target:   " + target_line(r) + "\n";
  out += "index:    " + r.index + "\n";
  out += "variant:  " + r.variant.variant + " (" + r.variant.reason + ")\n";
  for (const auto& tried : r.variant.tried) out += "          tried " + tried + "\n";
  if (r.variant.minimum_driver)
    out += "driver:   NVIDIA >= " + *r.variant.minimum_driver + " on the compute nodes" +
           (r.target.nvidia_driver ? "; checked against " + *r.target.nvidia_driver
                                   : std::string("; not checked here (--driver VERSION)")) +
           "\n";
  for (const auto& w : r.wheels) {
    out += fmt::format("\n{} {}{}\n", w.name, w.version, w.requested ? "" : "  [bundled]");
    out += "  file:     " + w.filename + "\n";
    out += "  url:      " + mask_credentials(w.url) + "\n";
    out += "  sha256:   " + w.sha256.value_or("none on the index (computed on download)") + "\n";
    out += "  size:     " + size_text(w.size) + "\n";
    out += fmt::format("  tag:      {} (#{} of the {} tags the target accepts)\n", w.best_tag,
                       w.tag_rank, w.tags_total);
    out += "  why:      " + w.why + "\n";
    if (w.metadata_source) out += "  metadata: " + *w.metadata_source + "\n";
    if (!w.dependencies.empty()) out += "  dependencies:\n";
    for (const auto& d : w.dependencies)
      out += fmt::format("    {:<34} -> {}  [{}]\n", requirement_text(d), provider_text(d),
                         verdict_text(d));
  }
  if (r.rocm) {
    out += "\nrocm libraries: " + r.rocm->summary + "\n";
    if (r.rocm->relinked)
      for (const auto& library : r.rocm->libraries)
        out += fmt::format(
            "  {:<28} {:<30} {}\n", library.file, library.soname,
            library.module.empty() ? "bundled: " + library.note : "-> " + library.module);
  }
  if (!r.modules.empty()) {
    out += "\nmodules to load:\n";
    for (const auto& module : r.modules) out += "  " + module + "\n";
  }
  if (!r.missing.empty()) {
    out += "\nmissing:\n";
    for (const auto& d : r.missing) out += "  " + requirement_text(d) + ": " + d.note + "\n";
  }
  if (!r.warnings.empty()) {
    out += "\nwarnings:\n";
    for (const auto& warning : r.warnings) out += "  " + warning + "\n";
  }
  if (!r.notes.empty()) {
    out += "\nnotes:\n";
    for (const auto& note : r.notes) out += "  " + note + "\n";
  }
  return out;
}

namespace {
// Markdown table cells must not contain a bare '|'.
std::string cell(std::string text) {
  std::string out;
  for (const char c : text) {
    if (c == '|')
      out += "\\|";
    else
      out += c;
  }
  return out;
}
}  // namespace

std::string render_markdown(const ResolveReport& r) {
  std::string out =
      "## wheelmod resolve: " + cell(fmt::format("{}", fmt::join(r.specs, " "))) + "\n\n";
  out += "- **Target:** " + cell(target_line(r)) + "\n";
  out += "- **Index:** `" + r.index + "`\n";
  out += "- **Variant:** `" + r.variant.variant + "` — " + cell(r.variant.reason) + "\n";
  if (r.variant.minimum_driver)
    out += "- **NVIDIA driver:** >= " + *r.variant.minimum_driver +
           (r.target.nvidia_driver ? " (checked against " + cell(*r.target.nvidia_driver) + ")"
                                   : std::string(" (not checked)")) +
           "\n";
  out += "\n";
  out += "| project | version | file | sha256 | tag |\n|---|---|---|---|---|\n";
  for (const auto& w : r.wheels)
    out +=
        fmt::format("| {}{} | {} | `{}` | {} | `{}` (#{}) |\n", w.name,
                    w.requested ? "" : " (bundled)", w.version, w.filename,
                    w.sha256 ? "`" + *w.sha256 + "`" : "none on the index", w.best_tag, w.tag_rank);
  out +=
      "\n### Dependencies\n\n| wheel | requirement | provided by | verdict |\n|---|---|---|---|\n";
  for (const auto& w : r.wheels)
    for (const auto& d : w.dependencies)
      out += fmt::format("| {} | `{}` | {} | {} |\n", w.name, cell(requirement_text(d)),
                         cell(provider_text(d)), cell(verdict_text(d)));
  if (r.rocm) {
    out += "\n### ROCm libraries\n\n" + cell(r.rocm->summary) + "\n";
    if (r.rocm->relinked) {
      out += "\n| file | SONAME | from |\n|---|---|---|\n";
      for (const auto& library : r.rocm->libraries)
        out +=
            "| `" + library.file + "` | `" + library.soname + "` | " +
            cell(library.module.empty() ? "bundled: " + library.note : "`" + library.module + "`") +
            " |\n";
    }
  }
  if (!r.modules.empty()) {
    out += "\n### Modules to load\n\n";
    for (const auto& module : r.modules) out += "- `" + module + "`\n";
  }
  if (!r.missing.empty()) {
    out += "\n### Missing\n\n";
    for (const auto& d : r.missing)
      out += "- `" + cell(requirement_text(d)) + "`: " + cell(d.note) + "\n";
  }
  if (!r.warnings.empty()) {
    out += "\n### Warnings\n\n";
    for (const auto& warning : r.warnings) out += "- " + cell(warning) + "\n";
  }
  if (!r.notes.empty()) {
    out += "\n### Notes\n\n";
    for (const auto& note : r.notes) out += "- " + cell(note) + "\n";
  }
  return out;
}

}  // namespace wheelmod::cli
