// The steps of one resolution, each a function or class of its own so that unit tests reach
// them (tests/unit/resolve): the words its errors use, the variant choice, the pin solver.
// Private to wheelmod_resolve.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "index_client/candidates.hpp"
#include "pep/metadata.hpp"
#include "pep/requirement.hpp"
#include "pep/specifier.hpp"
#include "pep/tags.hpp"
#include "resolve/report.hpp"
#include "session.hpp"

namespace wheelmod::resolve {

/// Whether `set` pins one version (`==X` without a wildcard, or `===X`): yanked files are then
/// still taken (PEP 592).
bool is_pinned(const pep::SpecifierSet& set);
/// "Python 3.12, x86_64, glibc 2.28".
std::string target_text(const pep::TagTarget& target);
/// "torch==2.6.0", or the name alone.
std::string spec_text(const pep::Requirement& spec);
/// The nearest rejected candidates first, at most 8, one "\n    FILE: why" each.
std::string rejections_text(std::vector<index_client::Rejection> rejected);
/// "\n    URL: answer" for every page the session asked for `project`.
std::string probes_text(const Session& session, const std::string& project);
/// What a candidate of `spec` on `variant` must satisfy.
index_client::CandidateFilter filter_for(const Session& session, const pep::Requirement& spec,
                                         const std::string& variant);

/// The variant of the index for the first requested project: the exact one the accelerator
/// names when it serves that project for the target, else the closest lower one of the same
/// major; a variant the NVIDIA driver cannot run is passed over. Throws UnsatisfiableError (exit
/// 3): the project is on no page (naming each URL asked), or no variant has a fitting wheel.
VariantChoice choose_variant(Session& session, const std::string& accelerator_version);

/// Depth-first choice over the requested projects, best candidate first, backtracking when
/// their METADATA excludes the target Python or their pins disagree (torch==2.5.1 with
/// torchvision: 0.21.0 pins torch==2.6.0, so 0.20.1 is taken).
class PinSolver {
 public:
  /// `sets`: the candidates of each requested project, in the request's order; chosen() points
  /// into them, so they must outlive the solver's results.
  PinSolver(Session& session, const std::vector<index_client::CandidateSet>& sets);

  /// Chooses from project `index` on; true when every project has a candidate.
  bool solve(std::size_t index = 0);
  /// One candidate per project, in the request's order (after solve() returned true).
  [[nodiscard]] const std::vector<const index_client::Candidate*>& chosen() const {
    return m_chosen;
  }
  /// Every candidate passed over and why (kinds requires_python, pin, pinned_by).
  [[nodiscard]] const std::vector<index_client::Rejection>& conflicts() const {
    return m_conflicts;
  }

 private:
  bool consistent(std::size_t index, const index_client::Candidate& candidate);

  Session& m_session;
  const std::vector<index_client::CandidateSet>& m_sets;
  std::set<std::string> m_names;
  std::vector<const index_client::Candidate*> m_chosen;
  std::vector<index_client::Rejection> m_conflicts;
};

}  // namespace wheelmod::resolve
