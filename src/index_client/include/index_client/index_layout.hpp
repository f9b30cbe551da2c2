// Where an index keeps a project's files for a variant, found the way pip finds a page: by asking
// for it. One model for every shape a site serves:
//   - download.pytorch.org's: `<root>/<project>/` lists the files of every variant, each in its
//     variant directory, and `<root>/<variant>/<project>/` those of one variant;
//   - a tree of variant directories with no pages at its root (a copy of a few variants, or a
//     wheelmod mirror written before it wrote root pages);
//   - a single-variant PEP 503 or PEP 691 index, as Artifactory, Nexus, devpi or a site's proxy
//     serve download.pytorch.org/whl/cu126: `<root>/<project>/` only, its files' variant in their
//     local version labels (`+cu126`);
//   - wheelmod's own mirror, which has both the root pages and the variant directories.
// The index's root page, or a web server's listing of its root, is read only as a hint (the
// projects to suggest in an error, a project directory spelled otherwise than PEP 503's
// normalised name): never as proof that a project does not exist.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "index/page.hpp"
#include "net/fetcher.hpp"

namespace wheelmod::index_client {

/// One URL asked, and what it answered.
struct PageProbe {
  std::string url;     // credentials masked
  std::string answer;  // "HTTP 404", "no such file", "a page of 12 files", "a listing of 3 entries"
};

/// Where the files a variant offers of a project were found.
enum class VariantSource {
  variant_directory,  // `<root>/<variant>/<project>/`
  project_page,       // those of `<root>/<project>/` that belong to the variant
};

struct VariantPage {
  const index::ProjectPage* page = nullptr;  // owned by the IndexLayout
  VariantSource source = VariantSource::variant_directory;
};

/// Whether a file of a project page belongs to `variant`: its local label when that names a
/// variant (`+cu126`, `+rocm6.4`, `+cpu`), else its URL's directory when that is a variant
/// directory (download.pytorch.org's unlabelled aarch64 `/whl/cu126/torchvision-…whl`), else yes
/// (`/whl/triton-…whl`, `sympy-…whl`: every variant's page lists them).
bool belongs_to_variant(const index::Link& link, std::string_view variant);

/// The local version label of a wheel's file name, lower case ("cu126" of
/// `torch-2.6.0+cu126-cp312-…whl`); "" when it has none.
std::string local_label(std::string_view filename);

/// The variants whose files a project page lists (as belongs_to_variant reads them): the
/// local labels that name a variant, and, for files without one, the variant directories their
/// URLs are in (download.pytorch.org's `/whl/torch/` links `…/whl/cu128/torch-…whl`).
std::set<std::string> listed_variants(const index::ProjectPage& page);

/// The pages of one index, each fetched once, with what every request answered.
class IndexLayout {
 public:
  /// `root`: the index URL (`https://download.pytorch.org/whl`, `file:///srv/mirror`,
  /// `https://proxy/simple`), without a trailing '/'.
  IndexLayout(std::string root, net::Fetcher& fetcher);

  [[nodiscard]] const std::string& root() const { return m_root; }

  /// `<root>/<project>/` for the PEP 503 normalised `project` (else the entry of the root's
  /// listing whose name normalises to it); nullptr when the index has neither.
  const index::ProjectPage* project_page(const std::string& project);

  /// The variants the project page has files of (by local label and by directory, as
  /// belongs_to_variant reads them); nullptr when there is no project page or it names none.
  const std::set<std::string>* listed_variants(const std::string& project);

  /// The variant directories the index's root page or listing shows (`cu126/` in nginx's or
  /// python's listing of a mirror without root pages): a hint of which variants exist.
  std::set<std::string> listed_directories();

  /// The files `variant` offers of `project`: `<root>/<variant>/<project>/` when the index has
  /// that page, else the files of the project page that belong to the variant (none: nullopt).
  /// A variant directory's pages are asked by the normalised name only, as pip asks.
  std::optional<VariantPage> variant_page(const std::string& variant, const std::string& project);

  /// Every URL asked for `project`, with its answer, in the order asked; then the root listing
  /// when it was read.
  [[nodiscard]] std::vector<PageProbe> probes(const std::string& project) const;

  /// PEP 503 names of the projects the index shows, for "did you mean": its root page or
  /// listing, else (when that names none) the root pages of those of `variants` the listing
  /// shows (all of them without a listing); variant directories are left out.
  std::vector<std::string> known_projects(const std::vector<std::string>& variants);

 private:
  struct Fetched {
    std::optional<index::ProjectPage> page;
    std::string answer;
  };
  const Fetched& fetch(const std::string& url, const std::string& project);
  const std::vector<index::RootEntry>& listing(const std::string& url);
  std::optional<std::string> listed_url(const std::string& listing_url, const std::string& project);

  std::string m_root;
  net::Fetcher& m_fetcher;
  std::map<std::string, Fetched> m_pages;                           // by URL
  std::map<std::string, std::vector<PageProbe>> m_probes;           // by project
  std::map<std::string, std::vector<index::RootEntry>> m_listings;  // by URL
  std::vector<PageProbe> m_listing_probes;
  std::map<std::string, const index::ProjectPage*> m_project_pages;  // by project
  std::map<std::string, std::optional<std::set<std::string>>> m_listed;
  std::map<std::pair<std::string, std::string>, index::ProjectPage> m_filtered;
};

}  // namespace wheelmod::index_client
