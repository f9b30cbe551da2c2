#include "resolve/resolver.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join (only here since fmt 11)

#include "core/errors.hpp"
#include "core/strings.hpp"
#include "core/suggest.hpp"
#include "core/url.hpp"
#include "index_client/project_page.hpp"
#include "pep/name.hpp"
#include "session.hpp"

namespace wheelmod::resolve {

namespace {

bool is_pinned(const pep::SpecifierSet& set) {
  return std::any_of(set.specifiers().begin(), set.specifiers().end(), [](const auto& s) {
    return (s.op() == pep::Operator::equal && !s.wildcard()) || s.op() == pep::Operator::arbitrary;
  });
}

std::string target_text(const pep::TagTarget& t) {
  return fmt::format("Python {}.{}{}, {}, glibc {}.{}", t.python_major, t.python_minor,
                     t.free_threaded ? "t" : "", t.arch, t.glibc.major, t.glibc.minor);
}

std::string spec_text(const pep::Requirement& spec) {
  return spec.specifier.empty() ? spec.canonical_name()
                                : spec.canonical_name() + spec.specifier.str();
}

// The nearest rejected candidates first: a matching version that failed on
// tags or variant says more than an older version, and a file wrong in one
// way (Python) more than one wrong in two (Python and architecture).
std::string rejections_text(std::vector<index_client::Rejection> rejected) {
  const auto distance = [](const index_client::Rejection& r) {
    return std::pair{r.kind == index_client::RejectionKind::version,
                     std::max<std::size_t>(r.mismatches.size(), 1)};
  };
  std::ranges::stable_sort(rejected,
                           [&](const index_client::Rejection& a, const index_client::Rejection& b) {
                             return distance(a) < distance(b);
                           });
  std::string out;
  constexpr std::size_t k_shown = 8;
  for (std::size_t i = 0; i < rejected.size() && i < k_shown; ++i)
    out += "\n    " + rejected[i].filename + ": " + index_client::describe(rejected[i]);
  if (rejected.size() > k_shown)
    out += fmt::format("\n    ... and {} more", rejected.size() - k_shown);
  return out;
}

index_client::CandidateFilter filter_for(const Session& session, const pep::Requirement& spec,
                                         const std::string& variant) {
  return {spec.canonical_name(), spec.specifier, variant, is_pinned(spec.specifier),
          session.request.wheel_variant};
}

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

// "\n    URL: answer" for every page asked for `project`, for errors that say which URL answered
// what (a 404, a listing without it).
std::string probes_text(const Session& session, const std::string& project) {
  std::string out;
  for (const auto& probe : session.layout().probes(project))
    out += "\n    " + probe.url + ": " + probe.answer;
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

// Requirements of `metadata` on projects in `names` that apply to the target.
std::vector<pep::Requirement> pins_on(const Session& session, const pep::CoreMetadata& metadata,
                                      const std::set<std::string>& names) {
  std::vector<pep::Requirement> out;
  for (const auto& requirement : metadata.requires_dist)
    if (names.contains(requirement.canonical_name()) && requirement.applies_to(session.environment))
      out.push_back(requirement);
  return out;
}

// Depth-first choice over the requested projects, best candidate first,
// backtracking when pins disagree (torch==2.5.1 with torchvision: 0.21.0
// pins torch==2.6.0, so 0.20.1 is taken).
class PinSolver {
 public:
  PinSolver(Session& session, std::vector<index_client::CandidateSet> sets)
      : m_session(session), m_sets(std::move(sets)) {
    for (const auto& spec : session.request.specs) m_names.insert(spec.canonical_name());
  }

  bool solve(std::size_t index) {
    if (index == m_sets.size()) return true;
    for (const auto& candidate : m_sets[index].fitting) {
      if (!consistent(index, candidate)) continue;
      m_chosen.push_back(&candidate);
      if (solve(index + 1)) return true;
      m_chosen.pop_back();
    }
    return false;
  }

  const std::vector<const index_client::Candidate*>& chosen() const { return m_chosen; }
  std::vector<index_client::Rejection>& conflicts() { return m_conflicts; }

 private:
  bool consistent(std::size_t index, const index_client::Candidate& candidate) {
    // With --no-deps the METADATA is read only where the index serves it beside the wheel
    // (PEP 658): reading it from the wheel itself (range requests, else the whole file) is what
    // --no-deps is asked to spare, and an index that has no usable METADATA still resolves.
    const bool no_deps = m_session.request.no_deps;
    if (no_deps && !candidate.link.has_core_metadata) return true;
    const auto& metadata = m_session.metadata(candidate).metadata;
    // Requires-Python in the METADATA (core metadata 1.2), which a page need not repeat as
    // data-requires-python: pip makes it a requirement of the candidate (resolvelib
    // candidates.py iter_dependencies, RequiresPythonRequirement) and passes over a candidate
    // whose value excludes the target, even with --no-deps; so does wheelmod, to an older one.
    const auto& target = m_session.request.tag_target;
    const auto python = pep::Version::parse(std::to_string(target.python_major) + "." +
                                            std::to_string(target.python_minor));
    if (metadata.requires_python && python &&
        !metadata.requires_python->contains(*python, pep::Prereleases::allow)) {
      m_conflicts.push_back({candidate.link.filename,
                             index_client::RejectionKind::requires_python,
                             metadata.requires_python->str(),
                             python->str(),
                             {},
                             true});
      return false;
    }
    if (no_deps) return true;
    const auto& project = m_session.request.specs[index].canonical_name();
    // Its pins on the projects chosen so far ...
    for (const auto& pin : pins_on(m_session, metadata, m_names)) {
      for (const auto* other : m_chosen) {
        if (other->wheel.name == pin.canonical_name() &&
            !pin.specifier.contains(other->wheel.version, pep::Prereleases::allow)) {
          m_conflicts.push_back({candidate.link.filename,
                                 index_client::RejectionKind::pin,
                                 pin.str(),
                                 other->wheel.name + " " + other->wheel.version.str(),
                                 {},
                                 false});
          return false;
        }
      }
    }
    // ... and their pins on it.
    for (const auto* other : m_chosen) {
      for (const auto& pin : pins_on(m_session, m_session.metadata(*other).metadata, {project})) {
        if (!pin.specifier.contains(candidate.wheel.version, pep::Prereleases::allow)) {
          m_conflicts.push_back({candidate.link.filename,
                                 index_client::RejectionKind::pinned_by,
                                 other->wheel.name + " " + other->wheel.version.str(),
                                 pin.str(),
                                 {},
                                 false});
          return false;
        }
      }
    }
    return true;
  }

  Session& m_session;
  std::vector<index_client::CandidateSet> m_sets;
  std::set<std::string> m_names;
  std::vector<const index_client::Candidate*> m_chosen;
  std::vector<index_client::Rejection> m_conflicts;
};

std::string why_chosen(const pep::Requirement& spec, const index_client::CandidateSet& set) {
  std::string why = "highest version matching " + spec_text(spec) + " that fits the target";
  const auto others = set.fitting.size() - 1 + set.rejected.size();
  if (others > 0) why += fmt::format("; {} other file{} not taken", others, others == 1 ? "" : "s");
  return why;
}

}  // namespace

// ---- Session ---------------------------------------------------------------

Session::Session(const ResolveRequest& req, net::Fetcher& fetcher, Reporter& rep)
    : request(req),
      environment(pep::MarkerEnvironment::linux_cpython(req.python, req.tag_target.arch)),
      supported(pep::supported_tags(req.tag_target)),
      priority(supported),
      reporter(rep),
      m_fetcher(fetcher),
      m_layout(req.index_root, fetcher) {}

const index::ProjectPage* Session::page(const std::string& variant, const std::string& project) {
  const auto found = m_layout.variant_page(variant, project);
  return found ? found->page : nullptr;
}

const ParsedMetadata& Session::metadata(const index_client::Candidate& candidate) {
  const auto& url = candidate.link.url;
  if (const auto it = m_metadata.find(url); it != m_metadata.end()) return it->second;
  auto fetched = index_client::fetch_wheel_metadata(m_fetcher, candidate.link);
  if (fetched.warning) warnings.push_back(*fetched.warning);
  auto parsed = pep::CoreMetadata::parse(fetched.text);
  if (!parsed)
    throw IntegrityError(candidate.link.filename,
                         "its METADATA is not valid: " + parsed.error().message);
  if (pep::canonicalize_name(parsed->name) != candidate.wheel.name ||
      parsed->version != candidate.wheel.version)
    throw IntegrityError(candidate.link.filename,
                         "its METADATA names " + parsed->name + " " + parsed->version.str() +
                             ", not the file name's project and version",
                         "the index serves a wrong or renamed file");
  return m_metadata.emplace(url, ParsedMetadata{std::move(*parsed), fetched.source}).first->second;
}

ChosenWheel describe_candidate(const Session& session, const index_client::Candidate& candidate,
                               const std::string& variant, bool requested, std::string why) {
  ChosenWheel wheel;
  wheel.name = candidate.wheel.name;
  wheel.version = candidate.wheel.version.str();
  wheel.filename = candidate.link.filename;
  wheel.url = candidate.link.url;  // masked where it is printed, not where it is fetched
  wheel.sha256 = candidate.link.sha256();
  wheel.size = candidate.link.size;
  wheel.variant = variant;
  wheel.best_tag = session.supported[candidate.rank].str();
  wheel.tag_rank = candidate.rank + 1;
  wheel.tags_total = session.supported.size();
  wheel.requested = requested;
  wheel.why = std::move(why);
  return wheel;
}

// ---- resolve ---------------------------------------------------------------

ResolveReport resolve(const ResolveRequest& request, net::Fetcher& fetcher, Reporter& reporter) {
  if (request.specs.empty())
    throw UsageError("resolve", "no requirement given", "name at least one, e.g. torch==2.6.0");
  Session session(request, fetcher, reporter);

  ResolveReport report;
  report.index = mask_credentials(request.index_root);
  for (const auto& spec : request.specs) report.specs.push_back(spec.str());
  report.no_deps = request.no_deps;

  auto& target = report.target;
  target.toolchain = request.toolchain;
  if (request.generation) target.generation = request.generation->name;
  target.python = request.python;
  target.python_source = request.python_source;
  target.arch = request.tag_target.arch;
  target.glibc =
      fmt::format("{}.{}", request.tag_target.glibc.major, request.tag_target.glibc.minor);
  if (request.nvidia_driver)
    target.nvidia_driver =
        request.nvidia_driver->version + " (" + request.nvidia_driver->source + ")";

  // The accelerator version: as given, else the toolchain generation's.
  std::string accelerator_version = request.accelerator.version.value_or("");
  target.accelerator_source = "--accelerator";
  if (request.accelerator.kind != index_client::AcceleratorKind::cpu &&
      accelerator_version.empty()) {
    const auto& module = request.accelerator.kind == index_client::AcceleratorKind::cuda
                             ? (request.generation ? request.generation->cuda : std::nullopt)
                             : (request.generation ? request.generation->rocm : std::nullopt);
    if (!module)
      throw UsageError(
          "--accelerator " + std::string(index_client::kind_text(request.accelerator.kind)),
          request.generation
              ? "toolchain generation " + request.generation->name + " has no " +
                    std::string(index_client::kind_text(request.accelerator.kind)) + " module"
              : "no version given and no --toolchain to take it from",
          "name the version, e.g. --accelerator cuda:12.6 or --accelerator cu126");
    accelerator_version = module->version;
    target.accelerator_source = "toolchain (" + module->module + ")";
  }
  target.accelerator = request.accelerator.kind == index_client::AcceleratorKind::cpu
                           ? "cpu"
                           : std::string(index_client::kind_text(request.accelerator.kind)) + " " +
                                 accelerator_version;

  report.variant = choose_variant(session, accelerator_version);
  const auto& variant = report.variant.variant;

  // Candidates of every requested project, from the one variant.
  std::vector<index_client::CandidateSet> sets;
  for (const auto& spec : request.specs) {
    const auto* page = session.page(variant, spec.canonical_name());
    if (page == nullptr)
      throw UnsatisfiableError(spec_text(spec),
                               "the " + variant + " variant of the index has no " +
                                   spec.canonical_name() +
                                   " page; asked:" + probes_text(session, spec.canonical_name()),
                               "torch, torchvision and torchaudio must come from one variant");
    auto set = index_client::collect_candidates(*page, filter_for(session, spec, variant),
                                                request.tag_target, session.priority);
    for (const auto& rejection : set.rejected)
      if (rejection.kind == index_client::RejectionKind::variant_wheel)
        report.notes.push_back(rejection.filename + ": " + index_client::describe(rejection));
    if (set.fitting.empty())
      throw UnsatisfiableError(spec_text(spec),
                               "no wheel on the " + variant + " variant (chosen for " +
                                   spec_text(request.specs.front()) + ") fits " +
                                   target_text(request.tag_target) +
                                   "; nearest candidates:" + rejections_text(set.rejected),
                               "every project comes from one variant; `wheelmod tags` lists "
                               "the tags this target accepts");
    sets.push_back(std::move(set));
  }

  PinSolver solver(session, sets);
  if (!solver.solve(0)) {
    throw UnsatisfiableError(
        fmt::format("{}", fmt::join(report.specs, " ")),
        "no candidates can be chosen together: their METADATA excludes the target Python, or "
        "the requested projects pin each other to versions that cannot all be met; conflicts:" +
            rejections_text(solver.conflicts()),
        "choose a target Python the project supports (--python, --toolchain), relax one of the "
        "version specifiers, or let one project follow the other's pin");
  }
  // Candidates passed over for their METADATA's Requires-Python: said, as pip says why it
  // backtracks.
  for (const auto& conflict : solver.conflicts())
    if (conflict.kind == index_client::RejectionKind::requires_python)
      report.notes.push_back(conflict.filename + ": " + index_client::describe(conflict) +
                             "; not taken");

  std::vector<ChosenWheel> chosen;
  for (std::size_t i = 0; i < sets.size(); ++i) {
    const auto& candidate = *solver.chosen()[i];
    chosen.push_back(describe_candidate(session, candidate, variant, true,
                                        why_chosen(request.specs[i], sets[i])));
    if (!candidate.link.sha256())
      report.warnings.push_back(candidate.link.filename +
                                ": the index gives no sha256; it will be computed on download");
  }
  std::vector<ChosenWheel> bundled;
  if (!request.no_deps) {
    for (std::size_t i = 0; i < chosen.size(); ++i) {
      const auto& parsed = session.metadata(*solver.chosen()[i]);
      chosen[i].metadata_source = std::string(describe(parsed.source));
      map_dependencies(session, chosen[i], parsed.metadata, chosen, bundled);
    }
  }
  for (auto& wheel : bundled) chosen.push_back(std::move(wheel));
  report.wheels = std::move(chosen);

  std::set<std::string> modules;
  if (request.generation) modules.insert(request.generation->python.module);
  std::set<std::string> missing_seen;
  for (const auto& wheel : report.wheels) {
    for (const auto& dependency : wheel.dependencies) {
      if (dependency.resolution == DependencyResolution::eb_module)
        modules.insert(dependency.provider);
      if (dependency.resolution == DependencyResolution::missing &&
          missing_seen.insert(dependency.name).second)
        report.missing.push_back(dependency);
      if (dependency.compatibility == Compatibility::incompatible)
        report.warnings.push_back(wheel.name + " needs " + dependency.requirement + ", but " +
                                  dependency.provider + " provides " +
                                  dependency.provided_version.value_or("another version") + ": " +
                                  dependency.note);
    }
  }
  report.modules.assign(modules.begin(), modules.end());
  report.warnings.insert(report.warnings.end(), session.warnings.begin(), session.warnings.end());
  for (const auto& warning : report.warnings) reporter.on_warning(warning);
  return report;
}

}  // namespace wheelmod::resolve
