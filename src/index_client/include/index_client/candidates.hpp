// Reading one project's page of a variant into candidate wheels for a
// target, and saying in words why each other file does not fit.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "index/page.hpp"
#include "pep/specifier.hpp"
#include "pep/tags.hpp"
#include "pep/wheel_filename.hpp"

namespace wheelmod::index_client {

/// A file of the project that does not fit, and why.
struct Rejection {
  std::string filename;
  std::string reason;
  bool variant_wheel = false;  // a PEP 825 variant wheel not asked for: worth a note
};

struct Candidate {
  index::Link link;
  pep::WheelFilename wheel;
  std::size_t rank = 0;  // 0-based position of its best tag in the target's list
};

struct CandidateSet {
  std::vector<Candidate> fitting;   // best first: highest version, then best tag
  std::vector<Rejection> rejected;  // files of this project that do not fit, with why
};

/// What a candidate must satisfy.
struct CandidateFilter {
  std::string project;  // PEP 503 name
  pep::SpecifierSet specifier;
  std::string variant;  // cu126: a local label must be +cu126 or absent
  bool pinned = false;  // ==/=== pin: yanked files still allowed (PEP 592)
  /// PEP 825 variant wheels: only those of this label are taken (before the ordinary wheels of
  /// the same version); nullopt: none is.
  std::optional<std::string> wheel_variant;
};

CandidateSet collect_candidates(const index::ProjectPage& page, const CandidateFilter& filter,
                                const pep::TagTarget& target, const pep::TagPriority& priority);

/// Why none of `tags` is accepted by `target`, in words ("built for Python
/// 3.13", "needs glibc 2.28, the target has 2.17", "for aarch64").
std::string explain_tag_mismatch(const std::vector<pep::Tag>& tags, const pep::TagTarget& target);

}  // namespace wheelmod::index_client
