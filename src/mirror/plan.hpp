// What a mirror spec selects on the index right now: every (variant, file)
// listing, the selected projects' files for each target (Python x arch
// under the glibc floor), and, when the spec follows dependencies, the
// newest fitting file of each requirement for each target, transitively.
// Reads pages and core metadata only (PEP 658 files, else range requests).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/reporter.hpp"
#include "index/page.hpp"
#include "mirror/spec.hpp"
#include "net/fetcher.hpp"

namespace wheelmod::mirror {

struct PlannedFile {
  std::string variant;  // listed on this variant's pages
  std::string project;  // PEP 503 normalised
  index::Link link;     // filename, upstream URL, hashes, requires-python, metadata
  bool dependency = false;
};

struct MirrorPlan {
  std::vector<std::string> variants;  // the selected variants the index has
  std::vector<PlannedFile> files;     // sorted by variant, project, filename; each listing once
  std::vector<std::string> notes;     // variants or requirements the index lacks
  std::size_t metadata_fetched = 0;   // core metadata read from the index (not the mirror)
};

/// The METADATA of a wheel the mirror already holds with the same bytes
/// (nullopt: fetch it from the index), so that a re-run reads no metadata
/// upstream.
using KnownMetadata = std::function<std::optional<std::string>(const index::Link&)>;

MirrorPlan plan_mirror(const MirrorSpec& spec, net::Fetcher& fetcher, Reporter& reporter,
                       const KnownMetadata& known = {});

/// The variant names `selection` picks among `available` (cpu, cu126,
/// rocm6.2.4, ...): the listed ones, and those whose CUDA / ROCm version
/// lies in the given ranges. Sorted, each once.
std::vector<std::string> select_variants(const VariantSelection& selection,
                                         const std::vector<std::string>& available);

}  // namespace wheelmod::mirror
