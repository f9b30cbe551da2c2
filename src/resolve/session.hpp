// State shared by the steps of one resolution (private to src/resolve):
// the fetched pages and metadata, so that each URL is read once.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/reporter.hpp"
#include "easybuild/config.hpp"
#include "index/page.hpp"
#include "index_client/candidates.hpp"
#include "index_client/index_layout.hpp"
#include "index_client/metadata_source.hpp"
#include "net/fetcher.hpp"
#include "pep/marker.hpp"
#include "pep/metadata.hpp"
#include "pep/tags.hpp"
#include "resolve/resolver.hpp"

namespace wheelmod::resolve {

struct ParsedMetadata {
  pep::CoreMetadata metadata;
  index_client::MetadataSource source;
};

class Session {
 public:
  Session(const ResolveRequest& request, net::Fetcher& fetcher, Reporter& reporter);

  /// The files `variant` offers of `project` (index_client::IndexLayout::variant_page); nullptr
  /// when the index has none.
  const index::ProjectPage* page(const std::string& variant, const std::string& project);
  /// METADATA of a candidate, fetched once per wheel URL.
  const ParsedMetadata& metadata(const index_client::Candidate& candidate);
  /// The index's pages, each read once, and what each URL asked answered.
  index_client::IndexLayout& layout() { return m_layout; }
  [[nodiscard]] const index_client::IndexLayout& layout() const { return m_layout; }

  const ResolveRequest& request;
  pep::MarkerEnvironment environment;
  std::vector<pep::Tag> supported;
  pep::TagPriority priority;
  Reporter& reporter;
  std::vector<std::string> warnings;  // for the report: what the index got wrong, and how it went

 private:
  net::Fetcher& m_fetcher;
  index_client::IndexLayout m_layout;
  std::map<std::string, ParsedMetadata> m_metadata;  // by wheel URL
};

/// Maps the dependencies of `wheel` (its METADATA's Requires-Dist for the
/// target) to chosen wheels, EB modules or bundled wheels; appends bundled
/// wheels it needs to `bundled`. `chosen` are the requested wheels.
void map_dependencies(Session& session, ChosenWheel& wheel, const pep::CoreMetadata& metadata,
                      const std::vector<ChosenWheel>& chosen, std::vector<ChosenWheel>& bundled);

/// A ChosenWheel record for a candidate.
ChosenWheel describe_candidate(const Session& session, const index_client::Candidate& candidate,
                               const std::string& variant, bool requested, std::string why);

}  // namespace wheelmod::resolve
