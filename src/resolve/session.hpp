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

  /// The project page of `project` in `variant`; nullptr when the index has none.
  const index::ProjectPage* page(const std::string& variant, const std::string& project);
  /// METADATA of a candidate, fetched once per wheel URL.
  const ParsedMetadata& metadata(const index_client::Candidate& candidate);
  /// The variant directories the project's page at the index root (`/whl/torch/`) has files in,
  /// read once; nullptr when the index has no such page or it names no variant directory.
  const std::set<std::string>* listed_variants(const std::string& project);
  /// The projects the index root's page lists (PEP 503 names), read once; nullptr when the
  /// index has no root page or it is not one.
  const std::set<std::string>* root_projects();

  const ResolveRequest& request;
  pep::MarkerEnvironment environment;
  std::vector<pep::Tag> supported;
  pep::TagPriority priority;
  Reporter& reporter;
  std::vector<std::string> warnings;  // for the report: what the index got wrong, and how it went

 private:
  net::Fetcher& m_fetcher;
  std::map<std::string, std::optional<index::ProjectPage>> m_pages;      // by URL
  std::map<std::string, ParsedMetadata> m_metadata;                      // by wheel URL
  std::map<std::string, std::optional<std::set<std::string>>> m_listed;  // by project
  std::optional<std::optional<std::set<std::string>>> m_root_projects;
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
