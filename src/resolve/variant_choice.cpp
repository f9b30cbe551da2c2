#include <fmt/format.h>

#include "core/errors.hpp"
#include "core/strings.hpp"
#include "core/suggest.hpp"
#include "index_client/accelerator.hpp"
#include "pep/version.hpp"
#include "steps.hpp"

namespace wheelmod::resolve {

namespace {

// Whether `driver` (550.54.15) is older than `floor` (580, 525.60.13).
bool driver_older(const std::string& driver, const std::string& floor) {
  const auto a = pep::Version::parse(driver);
  const auto b = pep::Version::parse(floor);
  return a && b && *a < *b;
}

// The variants to try, best first.
std::vector<std::string> variant_order(const ResolveRequest& request,
                                       const std::string& accelerator_version,
                                       const std::set<std::string>* listed) {
  const auto& accelerator = request.accelerator;
  if (!accelerator.variant)
    return index_client::variant_candidates(accelerator.kind, accelerator_version, listed);
  const auto& named = *accelerator.variant;
  if (accelerator.kind != index_client::AcceleratorKind::rocm) return {named};
  // `rocm6.2` also names the directories of that series by patch level (rocm6.2.4).
  std::vector<std::string> out;
  for (auto& name :
       index_client::variant_candidates(accelerator.kind, *accelerator.version, listed))
    if (name == named || name.starts_with(named + ".")) out.push_back(std::move(name));
  if (out.empty()) out.push_back(named);
  return out;
}

// No page of the index has the project at all, neither at its root nor in a variant directory:
// the URLs asked and what each answered, and the nearest name the index shows.
[[noreturn]] void throw_no_project(Session& session, const pep::Requirement& spec,
                                   const std::vector<std::string>& variants) {
  const auto project = spec.canonical_name();
  const auto known = session.layout().known_projects(variants);
  const auto nearest = closest(project, known);
  throw UnsatisfiableError(
      spec_text(spec),
      "no page of the index lists project '" + project +
          "'; asked:" + probes_text(session, project),
      nearest ? "did you mean '" + *nearest + "'?"
              : "check the name, and that --index names the index root (the directory or URL "
                "that holds the project pages, or the variant directories cpu/, cu126/, ...)");
}

}  // namespace

// The variant: the exact one when it serves the first requested project
// for this target, else the closest lower one of the same major.
VariantChoice choose_variant(Session& session, const std::string& accelerator_version) {
  const auto& request = session.request;
  const auto& first = request.specs.front();
  const auto project = first.canonical_name();
  // The project's page at the index root (download.pytorch.org's /whl/torch/, a single-variant
  // index's only page) names the variants it has files of; without one, every candidate
  // variant directory is asked.
  const auto* listed = session.layout().listed_variants(project);
  const auto candidates = variant_order(request, accelerator_version, listed);

  VariantChoice choice;
  std::vector<index_client::Rejection> nearest;
  bool any_page = session.layout().project_page(project) != nullptr;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const auto& variant = candidates[i];
    const auto floor = index_client::minimum_driver(variant);
    if (floor && request.nvidia_driver && driver_older(request.nvidia_driver->version, *floor)) {
      choice.tried.push_back(fmt::format("{}: needs NVIDIA driver >= {}, the driver is {} ({})",
                                         variant, *floor, request.nvidia_driver->version,
                                         request.nvidia_driver->source));
      continue;
    }
    const auto* page = session.page(variant, project);
    if (page == nullptr) {
      choice.tried.push_back(variant + ": no " + project + " page on this index");
      continue;
    }
    any_page = true;
    const auto set = index_client::collect_candidates(*page, filter_for(session, first, variant),
                                                      request.tag_target, session.priority);
    if (set.fitting.empty()) {
      choice.tried.push_back(variant + ": no wheel of " + spec_text(first) + " fits");
      if (nearest.empty()) nearest = set.rejected;
      continue;
    }
    // The exact variant is the one the version names, whether or not the index has it.
    const auto unfiltered = variant_order(request, accelerator_version, nullptr);
    const auto& exact_name = unfiltered.empty() ? variant : unfiltered.front();
    choice.variant = variant;
    choice.exact = variant == exact_name;
    choice.minimum_driver = floor;
    if (request.accelerator.kind == index_client::AcceleratorKind::cpu) {
      choice.reason = "CPU-only wheels";
    } else if (request.accelerator.variant) {
      choice.reason = "named with --accelerator";
    } else if (choice.exact) {
      choice.reason = "exact match for " +
                      std::string(index_client::kind_text(request.accelerator.kind)) + " " +
                      accelerator_version;
    } else {
      const bool absent = listed != nullptr && !listed->contains(exact_name);
      choice.reason = fmt::format(
          "{} {}; {} is the closest lower variant of the same major version, which runs on {} "
          "(minor version compatibility)",
          exact_name,
          absent ? "has no " + project + " files on this index"
                 : "has no " + spec_text(first) + " for this target",
          variant,
          std::string(index_client::kind_text(request.accelerator.kind)) + " " +
              accelerator_version);
    }
    return choice;
  }
  if (!any_page) throw_no_project(session, first, candidates);
  std::string tried;
  for (const auto& line : choice.tried) tried += "\n    " + line;
  if (candidates.empty()) tried += "\n    (none: no such variant directory on this index)";
  const std::string listing = listed != nullptr ? "\n  the index's " + project +
                                                      " page has files in: " + join(*listed, ", ")
                                                : std::string();
  throw UnsatisfiableError(
      spec_text(first),
      fmt::format("no variant of the index has a wheel for {} ({}{}); tried:{}{}{}\n  pages "
                  "asked:{}",
                  target_text(request.tag_target),
                  index_client::kind_text(request.accelerator.kind),
                  accelerator_version.empty() ? "" : " " + accelerator_version, tried, listing,
                  nearest.empty() ? "" : "\n  nearest candidates:" + rejections_text(nearest),
                  probes_text(session, project)),
      "check the version against the index, or the target with --python/--arch/--glibc "
      "(`wheelmod tags` lists what the target accepts); a driver too old for a variant: "
      "--driver VERSION names the compute nodes' driver");
}

}  // namespace wheelmod::resolve
