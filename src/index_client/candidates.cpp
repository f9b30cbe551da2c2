#include "index_client/candidates.hpp"

#include <algorithm>
#include <set>

#include "core/strings.hpp"
#include "pep/name.hpp"
#include "pep/specifier.hpp"
#include "pep/version.hpp"

namespace wheelmod::index_client {

namespace {

std::string target_python_tag(const pep::TagTarget& target) {
  return "cp" + std::to_string(target.python_major) + std::to_string(target.python_minor);
}

// "cp313" -> "3.13"; "py3" -> "3"; other interpreters as written.
std::string python_of(std::string_view interpreter) {
  if ((interpreter.starts_with("cp") || interpreter.starts_with("py")) && interpreter.size() > 2) {
    const auto digits = interpreter.substr(2);
    if (digits.size() == 1) return std::string(digits);
    return std::string(digits.substr(0, 1)) + "." + std::string(digits.substr(1));
  }
  return std::string(interpreter);
}

// Platform tag -> (arch, needed glibc minor or nullopt, system).
struct PlatformFacts {
  std::string system;  // linux, macOS, Windows, other
  std::string arch;
  std::optional<unsigned> glibc_minor;
};

PlatformFacts platform_facts(std::string_view platform) {
  PlatformFacts facts;
  if (platform == "any") return {"any", "", std::nullopt};
  if (platform.starts_with("macosx"))
    facts.system = "macOS";
  else if (platform.starts_with("win"))
    facts.system = "Windows";
  else if (platform.starts_with("musllinux"))
    facts.system = "musl Linux";
  else if (platform.starts_with("manylinux") || platform.starts_with("linux"))
    facts.system = "linux";
  else
    facts.system = std::string(platform);
  // PEP 600 manylinux_2_N_<arch>; legacy aliases (PEP 513/571/599) map to
  // glibc 2.5, 2.12 and 2.17.
  static const std::pair<std::string_view, unsigned> k_legacy[] = {
      {"manylinux1_", 5}, {"manylinux2010_", 12}, {"manylinux2014_", 17}};
  for (const auto& [prefix, minor] : k_legacy) {
    if (platform.starts_with(prefix)) {
      facts.glibc_minor = minor;
      facts.arch = std::string(platform.substr(prefix.size()));
      return facts;
    }
  }
  if (platform.starts_with("manylinux_2_")) {
    auto rest = platform.substr(std::string_view("manylinux_2_").size());
    const auto underscore = rest.find('_');
    if (underscore != std::string_view::npos) {
      unsigned minor = 0;
      for (const char c : rest.substr(0, underscore))
        minor = minor * 10 + static_cast<unsigned>(c - '0');
      facts.glibc_minor = minor;
      facts.arch = std::string(rest.substr(underscore + 1));
    }
    return facts;
  }
  if (platform.starts_with("linux_")) facts.arch = std::string(platform.substr(6));
  return facts;
}

bool local_fits_variant(const pep::Version& version, std::string_view variant) {
  // Wheels on a variant page carry that variant's label (`+cu126`); some
  // carry none (aarch64 domain wheels in CUDA dirs, e.g.
  // /whl/cu126/torchvision-0.21.0-cp312-cp312-linux_aarch64.whl).
  return !version.has_local() || version.local_str() == variant;
}

}  // namespace

std::vector<std::string> tag_mismatches(const std::vector<pep::Tag>& tags,
                                        const pep::TagTarget& target) {
  std::set<std::string> reasons;
  const auto wanted_python = target_python_tag(target);
  const std::string python_text =
      std::to_string(target.python_major) + "." + std::to_string(target.python_minor);
  for (const auto& tag : tags) {
    if (tag.interpreter.starts_with("cp") && tag.interpreter != wanted_python && tag.abi != "abi3")
      reasons.insert("built for Python " + python_of(tag.interpreter) + ", the target is " +
                     python_text);
    else if (tag.abi.ends_with("t") && !target.free_threaded && tag.abi.starts_with("cp"))
      reasons.insert("built for free-threaded Python (" + tag.abi + ")");
    const auto facts = platform_facts(tag.platform);
    if (facts.system != "linux" && facts.system != "any") {
      reasons.insert("built for " + facts.system);
      continue;
    }
    if (!facts.arch.empty() && facts.arch != target.arch)
      reasons.insert("built for " + facts.arch + ", the target is " + target.arch);
    else if (facts.glibc_minor && *facts.glibc_minor > target.glibc.minor &&
             target.glibc.major == 2)
      reasons.insert("needs glibc 2." + std::to_string(*facts.glibc_minor) + ", the target has " +
                     std::to_string(target.glibc.major) + "." + std::to_string(target.glibc.minor));
  }
  return {reasons.begin(), reasons.end()};
}

bool is_wheel_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-' || c == '+';
}

std::string describe(const Rejection& rejection) {
  switch (rejection.kind) {
    case RejectionKind::unsafe_file_name:
      return "skipped: its name holds '" + rejection.found +
             "', outside the letters, digits and . _ - + of every real wheel name (PEP 427, 440, "
             "425): such a name would reach a shell unquoted (EasyBuild's pip install)";
    case RejectionKind::invalid_file_name:
      return "not a valid wheel file name: " + rejection.found;
    case RejectionKind::variant_wheel:
      return "a PEP 825 variant wheel (label '" + rejection.found +
             "'); wheelmod takes ordinary wheels unless --wheel-variant " + rejection.found +
             " is given";
    case RejectionKind::version:
      return "version " + rejection.found + " does not match " +
             (rejection.wanted.empty() ? std::string("(final releases only)") : rejection.wanted);
    case RejectionKind::yanked:
      return "yanked" + (rejection.found.empty() ? std::string() : ": " + rejection.found);
    case RejectionKind::other_variant:
      return "built for +" + rejection.found + ", not the " + rejection.wanted + " variant";
    case RejectionKind::tags:
      return rejection.mismatches.empty() ? std::string("no tag accepted by the target")
                                          : join(rejection.mismatches, "; ");
    case RejectionKind::requires_python:
      return "requires Python " + rejection.found +
             (rejection.from_metadata ? " (its METADATA)" : "") + ", the target is " +
             rejection.wanted;
    case RejectionKind::pin:
      return "requires " + rejection.found + ", but " + rejection.wanted + " was chosen";
    case RejectionKind::pinned_by:
      return rejection.found + " requires " + rejection.wanted;
  }
  return {};
}

CandidateSet collect_candidates(const index::ProjectPage& page, const CandidateFilter& filter,
                                const pep::TagTarget& target, const pep::TagPriority& priority) {
  CandidateSet set;
  for (const auto& link : page.links) {
    if (!link.filename.ends_with(".whl")) continue;  // sdists and others: wheelmod installs wheels
    // A wheel's name goes into paths, easyconfigs and, through EasyBuild's unquoted `pip install
    // <file>`, a shell: one with a character outside the charset every real index's names use
    // is passed over before anything else reads it.
    if (const auto unsafe = std::ranges::find_if_not(link.filename, is_wheel_name_char);
        unsafe != link.filename.end()) {
      set.rejected.push_back({printable(link.filename),
                              RejectionKind::unsafe_file_name,
                              printable(std::string_view(&*unsafe, 1)),
                              "",
                              {},
                              false});
      continue;
    }
    auto wheel = pep::WheelFilename::parse(link.filename);
    if (!wheel) {
      set.rejected.push_back(
          {link.filename, RejectionKind::invalid_file_name, wheel.error().message, "", {}, false});
      continue;
    }
    if (wheel->name != filter.project) continue;  // another project listed on the page
    // PEP 825 (Draft): which variant fits a machine is decided by provider plugins that a later
    // PEP will define; wheelmod takes one only when the user names its label.
    if (wheel->variant_label && wheel->variant_label != filter.wheel_variant) {
      set.rejected.push_back(
          {link.filename, RejectionKind::variant_wheel, *wheel->variant_label, "", {}, false});
      continue;
    }
    if (!filter.specifier.contains(wheel->version)) {
      set.rejected.push_back({link.filename,
                              RejectionKind::version,
                              wheel->version.str(),
                              filter.specifier.empty() ? "" : filter.specifier.str(),
                              {},
                              false});
      continue;
    }
    if (link.yanked && !filter.pinned) {
      // PEP 592: a yanked file is only chosen when pinned exactly.
      set.rejected.push_back({link.filename, RejectionKind::yanked, *link.yanked, "", {}, false});
      continue;
    }
    if (!local_fits_variant(wheel->version, filter.variant)) {
      set.rejected.push_back({link.filename,
                              RejectionKind::other_variant,
                              wheel->version.local_str(),
                              filter.variant,
                              {},
                              false});
      continue;
    }
    const auto rank = priority.best_rank(wheel->tags);
    if (!rank) {
      set.rejected.push_back(
          {link.filename, RejectionKind::tags, "", "", tag_mismatches(wheel->tags, target), false});
      continue;
    }
    // PEP 503 data-requires-python / PEP 691 requires-python: the file is skipped when the
    // target's Python (X.Y, as pip's --python-version gives it) is outside it, as pip and uv do.
    // An attribute that does not parse is ignored, as pip does.
    if (link.requires_python) {
      const auto python = pep::Version::parse(std::to_string(target.python_major) + "." +
                                              std::to_string(target.python_minor));
      const auto needs = pep::SpecifierSet::parse(*link.requires_python);
      if (python && needs && !needs->contains(*python, pep::Prereleases::allow)) {
        set.rejected.push_back({link.filename,
                                RejectionKind::requires_python,
                                needs->str(),
                                python->str(),
                                {},
                                false});
        continue;
      }
    }
    set.fitting.push_back({link, std::move(*wheel), *rank});
  }
  std::stable_sort(set.fitting.begin(), set.fitting.end(),
                   [](const Candidate& a, const Candidate& b) {
                     // PEP 825 "Variant ordering": a (chosen) variant wheel before the
                     // non-variant ones of the same version. Variant wheels carry no local
                     // label (torch-2.10.0-…-cu128.whl beside torch-2.10.0+cu128-…whl), so
                     // the public versions are compared.
                     if (a.wheel.variant_label.has_value() != b.wheel.variant_label.has_value() &&
                         a.wheel.version.public_version() == b.wheel.version.public_version())
                       return a.wheel.variant_label.has_value();
                     if (a.wheel.version != b.wheel.version)
                       return a.wheel.version > b.wheel.version;
                     return a.rank < b.rank;
                   });
  return set;
}

}  // namespace wheelmod::index_client
