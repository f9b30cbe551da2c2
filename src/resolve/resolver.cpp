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
#include "steps.hpp"

namespace wheelmod::resolve {

namespace {
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
  auto parsed = index_client::checked_metadata(candidate.link.filename, fetched.text);
  return m_metadata.emplace(url, ParsedMetadata{std::move(parsed), fetched.source}).first->second;
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

namespace {

// The target as the report states it; returns the accelerator version: as given, else the
// toolchain generation's.
std::string describe_target(const ResolveRequest& request, TargetSummary& target) {
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
  std::string version = request.accelerator.version.value_or("");
  target.accelerator_source = "--accelerator";
  const auto kind = request.accelerator.kind;
  if (kind != index_client::AcceleratorKind::cpu && version.empty()) {
    const auto& module = kind == index_client::AcceleratorKind::cuda
                             ? (request.generation ? request.generation->cuda : std::nullopt)
                             : (request.generation ? request.generation->rocm : std::nullopt);
    if (!module)
      throw UsageError("--accelerator " + std::string(index_client::kind_text(kind)),
                       request.generation
                           ? "toolchain generation " + request.generation->name + " has no " +
                                 std::string(index_client::kind_text(kind)) + " module"
                           : "no version given and no --toolchain to take it from",
                       "name the version, e.g. --accelerator cuda:12.6 or --accelerator cu126");
    version = module->version;
    target.accelerator_source = "toolchain (" + module->module + ")";
  }
  target.accelerator = kind == index_client::AcceleratorKind::cpu
                           ? "cpu"
                           : std::string(index_client::kind_text(kind)) + " " + version;
  return version;
}

// The candidates of every requested project, from the one variant; the variant wheels passed
// over become notes.
std::vector<index_client::CandidateSet> requested_candidates(Session& session,
                                                             const std::string& variant,
                                                             ResolveReport& report) {
  const auto& request = session.request;
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
      if (rejection.kind == index_client::RejectionKind::variant_wheel ||
          rejection.kind == index_client::RejectionKind::unsafe_file_name)
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
  return sets;
}

// One candidate of each requested project that the pins between them allow; the candidates
// passed over for their METADATA's Requires-Python become notes, as pip says why it backtracks.
std::vector<const index_client::Candidate*> solve_pins(
    Session& session, const std::vector<index_client::CandidateSet>& sets, ResolveReport& report) {
  PinSolver solver(session, sets);
  if (!solver.solve())
    throw UnsatisfiableError(
        fmt::format("{}", fmt::join(report.specs, " ")),
        "no candidates can be chosen together: their METADATA excludes the target Python, or "
        "the requested projects pin each other to versions that cannot all be met; conflicts:" +
            rejections_text(solver.conflicts()),
        "choose a target Python the project supports (--python, --toolchain), relax one of the "
        "version specifiers, or let one project follow the other's pin");
  for (const auto& conflict : solver.conflicts())
    if (conflict.kind == index_client::RejectionKind::requires_python)
      report.notes.push_back(conflict.filename + ": " + index_client::describe(conflict) +
                             "; not taken");
  return solver.chosen();
}

// The chosen wheels, then what their dependencies need bundled.
std::vector<ChosenWheel> chosen_wheels(Session& session,
                                       const std::vector<index_client::CandidateSet>& sets,
                                       const std::vector<const index_client::Candidate*>& picks,
                                       const std::string& variant, ResolveReport& report) {
  const auto& request = session.request;
  std::vector<ChosenWheel> chosen;
  for (std::size_t i = 0; i < sets.size(); ++i) {
    chosen.push_back(describe_candidate(session, *picks[i], variant, true,
                                        why_chosen(request.specs[i], sets[i])));
    if (!picks[i]->link.sha256())
      report.warnings.push_back(picks[i]->link.filename +
                                ": the index gives no sha256; it will be computed on download");
  }
  std::vector<ChosenWheel> bundled;
  if (!request.no_deps) {
    for (std::size_t i = 0; i < chosen.size(); ++i) {
      const auto& parsed = session.metadata(*picks[i]);
      chosen[i].metadata_source = std::string(describe(parsed.source));
      map_dependencies(session, chosen[i], parsed.metadata, chosen, bundled);
    }
  }
  for (auto& wheel : bundled) chosen.push_back(std::move(wheel));
  return chosen;
}

// The modules to load, what is missing (each once), and the modules that provide a version the
// wheels do not accept.
void summarise_dependencies(const ResolveRequest& request, ResolveReport& report) {
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
}

}  // namespace

ResolveReport resolve(const ResolveRequest& request, net::Fetcher& fetcher, Reporter& reporter) {
  if (request.specs.empty())
    throw UsageError("resolve", "no requirement given", "name at least one, e.g. torch==2.6.0");
  Session session(request, fetcher, reporter);
  ResolveReport report;
  report.index = mask_credentials(request.index_root);
  for (const auto& spec : request.specs) report.specs.push_back(spec.str());
  report.no_deps = request.no_deps;
  const auto accelerator_version = describe_target(request, report.target);
  report.variant = choose_variant(session, accelerator_version);
  const auto& variant = report.variant.variant;
  const auto sets = requested_candidates(session, variant, report);
  const auto picks = solve_pins(session, sets, report);
  report.wheels = chosen_wheels(session, sets, picks, variant, report);
  summarise_dependencies(request, report);
  report.warnings.insert(report.warnings.end(), session.warnings.begin(), session.warnings.end());
  for (const auto& warning : report.warnings) reporter.on_warning(warning);
  return report;
}

}  // namespace wheelmod::resolve
