#include "steps.hpp"

namespace wheelmod::resolve {

namespace {

// Requirements of `metadata` on projects in `names` that apply to the target.
std::vector<pep::Requirement> pins_on(const Session& session, const pep::CoreMetadata& metadata,
                                      const std::set<std::string>& names) {
  std::vector<pep::Requirement> out;
  for (const auto& requirement : metadata.requires_dist)
    if (names.contains(requirement.canonical_name()) && requirement.applies_to(session.environment))
      out.push_back(requirement);
  return out;
}

}  // namespace

PinSolver::PinSolver(Session& session, const std::vector<index_client::CandidateSet>& sets)
    : m_session(session), m_sets(sets) {
  for (const auto& spec : session.request.specs) m_names.insert(spec.canonical_name());
}

bool PinSolver::solve(std::size_t index) {
  if (index == m_sets.size()) return true;
  for (const auto& candidate : m_sets[index].fitting) {
    if (!consistent(index, candidate)) continue;
    m_chosen.push_back(&candidate);
    if (solve(index + 1)) return true;
    m_chosen.pop_back();
  }
  return false;
}

bool PinSolver::consistent(std::size_t index, const index_client::Candidate& candidate) {
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

}  // namespace wheelmod::resolve
