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

/// Why a file is not taken. Callers decide by the kind and its fields; describe() gives the words.
enum class RejectionKind {
  unsafe_file_name,   // a character no real wheel name holds (found: it, escaped): never chosen
  invalid_file_name,  // not a wheel file name (found: the parse error)
  variant_wheel,      // a PEP 825 variant wheel not asked for (found: its label): worth a note
  version,            // found: its version; wanted: the specifier ("" for final releases only)
  yanked,             // PEP 592, and not pinned exactly (found: the reason, may be "")
  other_variant,      // found: its local label; wanted: the variant
  tags,               // no tag the target accepts (mismatches: each way, in words)
  requires_python,    // found: its Requires-Python; wanted: the target's X.Y
  pin,                // its METADATA pins a chosen project otherwise (found: the pin; wanted: the
                      // chosen project and version)
  pinned_by,          // a chosen project's METADATA pins this one otherwise (found: that project
                      // and version; wanted: its pin)
};

/// A file of the project that does not fit, and why.
struct Rejection {
  std::string filename;
  RejectionKind kind = RejectionKind::tags;
  std::string found;
  std::string wanted;
  std::vector<std::string> mismatches;  // tags only
  bool from_metadata = false;           // requires_python: the METADATA's, not the page's
};

/// Whether `c` may appear in a wheel's file name as wheelmod accepts it: ASCII letters, digits and
/// `._-+`. PEP 427 escapes a name and version to `[A-Za-z0-9_.]` and PEP 440 versions add `+`;
/// PyPI's and download.pytorch.org's names all fit. packaging accepts any text after a build
/// tag's digits and in a compressed tag set (`x86_64.$(id)`), which must not reach a shell.
bool is_wheel_name_char(char c);

/// The rejection in words ("version 2.5.1 does not match ==2.6.0", "built for Python 3.13, the
/// target is 3.12; needs glibc 2.28, the target has 2.17").
std::string describe(const Rejection& rejection);

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

/// Why none of `tags` is accepted by `target`: each way in words, sorted ("built for Python 3.13,
/// the target is 3.12", "needs glibc 2.28, the target has 2.17", "built for aarch64, the target
/// is x86_64"); empty when no one way can be named.
std::vector<std::string> tag_mismatches(const std::vector<pep::Tag>& tags,
                                        const pep::TagTarget& target);

}  // namespace wheelmod::index_client
