#include "plan.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "core/errors.hpp"
#include "core/strings.hpp"
#include "core/url.hpp"
#include "index_client/accelerator.hpp"
#include "index_client/candidates.hpp"
#include "index_client/index_layout.hpp"
#include "index_client/metadata_source.hpp"
#include "index_client/project_page.hpp"
#include "pep/marker.hpp"
#include "pep/metadata.hpp"
#include "pep/version.hpp"

namespace wheelmod::mirror {

namespace {

// One machine the mirror serves: a CPython and an architecture under the
// spec's glibc floor.
struct Target {
  std::string python;  // "3.12", "3.13t"
  pep::TagTarget tags;
  pep::TagPriority priority;
  pep::MarkerEnvironment environment;
};

std::vector<Target> targets_of(const MirrorSpec& spec) {
  std::vector<Target> out;
  for (const auto& python : spec.python)
    for (const auto& arch : spec.arches) {
      auto tags = pep::TagTarget::with_python(python, arch, spec.glibc);
      if (!tags)
        throw UsageError(spec.file.string(), "python " + python + ": " + tags.error().message);
      const std::string plain =
          python.ends_with('t') ? python.substr(0, python.size() - 1) : python;
      out.push_back(Target{python, *tags, pep::TagPriority(pep::supported_tags(*tags)),
                           pep::MarkerEnvironment::linux_cpython(plain, arch)});
    }
  return out;
}

bool in_range(const std::optional<pep::SpecifierSet>& range, const std::string& version) {
  if (!range) return false;
  const auto parsed = pep::Version::parse(version);
  return parsed && range->contains(*parsed, pep::Prereleases::allow);
}

class Planner {
 public:
  Planner(const MirrorSpec& spec, net::Fetcher& fetcher, Reporter& reporter,
          const KnownMetadata& known)
      : m_spec(spec),
        m_fetcher(fetcher),
        m_index(spec.index, fetcher),
        m_reporter(reporter),
        m_known(known),
        m_targets(targets_of(spec)) {}

  MirrorPlan run() {
    m_plan.variants = select_variants(m_spec.variants, available_variants());
    for (const auto& variant : m_plan.variants)
      for (const auto& package : m_spec.packages) select_package(variant, package);
    for (const auto& package : m_spec.packages) require_some_file(package);
    while (!m_queue.empty()) {
      const auto [variant, link, target] = m_queue.front();
      m_queue.pop_front();
      follow(variant, link, *target);
    }
    std::ranges::sort(m_plan.files, [](const PlannedFile& a, const PlannedFile& b) {
      return std::tie(a.variant, a.project, a.link.filename) <
             std::tie(b.variant, b.project, b.link.filename);
    });
    if (!m_missing.empty()) {
      std::string names;
      for (const auto& name : m_missing) names += (names.empty() ? "" : ", ") + name;
      m_plan.notes.push_back("required but on no page of the index (not mirrored): " + names);
    }
    return std::move(m_plan);
  }

 private:
  // Variants named in the spec, plus, for a range, those the index's root project pages show
  // (download.pytorch.org/whl/torch/ lists every variant's torch files; a single-variant index's
  // page has its variant in the files' local labels), else those its root listing shows (a
  // tree of variant directories behind a web server's listing).
  std::vector<std::string> available_variants() {
    std::set<std::string> found(m_spec.variants.names.begin(), m_spec.variants.names.end());
    if (m_spec.variants.cuda || m_spec.variants.rocm) {
      bool listed_any = false;
      for (const auto& package : m_spec.packages)
        if (const auto* listed = m_index.listed_variants(package.name)) {
          found.insert(listed->begin(), listed->end());
          listed_any = true;
        }
      if (!listed_any) found.merge(m_index.listed_directories());
    }
    return {found.begin(), found.end()};
  }

  const index::ProjectPage* project_page(const std::string& url) {
    auto [it, inserted] = m_pages.try_emplace(url);
    if (inserted) it->second = index_client::fetch_project_page(m_fetcher, url);
    return it->second ? &*it->second : nullptr;
  }

  bool add(const std::string& variant, const std::string& project, const index::Link& link,
           bool dependency) {
    if (!m_listed.insert({variant, link.filename}).second) return false;
    m_plan.files.push_back(PlannedFile{variant, project, link, dependency});
    return true;
  }

  void select_package(const std::string& variant, const PackageSelection& package) {
    const auto found = m_index.variant_page(variant, package.name);
    const auto* page = found ? found->page : nullptr;
    if (page == nullptr) {
      m_plan.notes.push_back(variant + ": no " + package.name + " page on the index");
      m_unmatched[package.name].push_back(variant + ": no " + package.name + " page");
      return;
    }
    auto& unmatched = m_unmatched[package.name];
    unmatched.push_back(variant + ": " + std::to_string(page->links.size()) +
                        " files listed, none fits " + package.name + package.specifier.str());
    const index_client::CandidateFilter filter{package.name, package.specifier, variant, false,
                                               std::nullopt};
    // Why each file did not fit (Python, arch, glibc, version), for the error when none does:
    // the files of the newest versions first, each once, a few per variant.
    std::map<std::string, std::string> why_not;
    for (const auto& target : m_targets) {
      std::set<std::string> versions;  // the best file of each version for this target
      const auto set =
          index_client::collect_candidates(*page, filter, target.tags, target.priority);
      for (const auto& candidate : set.fitting) {
        if (!versions.insert(candidate.wheel.version.str()).second) continue;
        add(variant, package.name, candidate.link, false);
        if (m_spec.follow_dependencies) m_queue.emplace_back(variant, candidate.link, &target);
      }
      for (const auto& rejection : set.rejected)
        why_not.try_emplace(rejection.filename, index_client::describe(rejection));
    }
    constexpr std::size_t k_reasons_shown = 8;
    std::size_t shown = 0;
    for (auto it = why_not.rbegin(); it != why_not.rend() && shown < k_reasons_shown; ++it, ++shown)
      unmatched.push_back("  " + terminal_text(it->first) + ": " + it->second);
    if (why_not.size() > k_reasons_shown)
      unmatched.push_back("  and " + std::to_string(why_not.size() - k_reasons_shown) +
                          " more files");
  }

  // A package of the spec that no variant has a fitting wheel of is a mistake in the spec (a
  // misspelt name or version, a Python or glibc no wheel is built for) or an index that lacks
  // it: refused before anything is downloaded, as pip download refuses a requirement nothing
  // satisfies, rather than a mirror that silently holds none of it.
  void require_some_file(const PackageSelection& package) {
    if (std::ranges::any_of(m_plan.files, [&](const PlannedFile& file) {
          return !file.dependency && file.project == package.name;
        }))
      return;
    std::string targets;
    for (const auto& python : m_spec.python) targets += (targets.empty() ? "" : ", ") + python;
    targets = "Python " + targets + " on ";
    for (std::size_t i = 0; i < m_spec.arches.size(); ++i)
      targets += (i == 0 ? "" : ", ") + m_spec.arches[i];
    targets += " with glibc " + std::to_string(m_spec.glibc.major) + "." +
               std::to_string(m_spec.glibc.minor);
    UnsatisfiableError error(
        package.name + package.specifier.str(),
        "no wheel on the index fits the mirror spec (" + targets + "); nothing was downloaded",
        "check the name and version against the index (`wheelmod resolve` lists what a variant "
        "offers), and the spec's variants, python, arches and glibc");
    if (m_plan.variants.empty()) error.with_detail("no variant of the index matches the spec's");
    for (const auto& why : m_unmatched[package.name]) error.with_detail(why);
    throw error;
  }

  const pep::CoreMetadata& metadata(const index::Link& link) {
    auto [it, inserted] = m_metadata.try_emplace(link.url);
    if (inserted) {
      auto text = m_known ? m_known(link) : std::nullopt;
      if (!text) {
        text = index_client::fetch_wheel_metadata(m_fetcher, link).text;
        ++m_plan.metadata_fetched;
      }
      // As resolve and fetch: a file whose METADATA names another project or version is not
      // mirrored, and nothing is published.
      it->second = index_client::checked_metadata(link.filename, *text);
    }
    return it->second;
  }

  // The newest fitting file of each requirement of `link` for `target`.
  void follow(const std::string& variant, const index::Link& link, const Target& target) {
    for (const auto& requirement : metadata(link).requires_dist) {
      if (requirement.url || !requirement.applies_to(target.environment)) continue;
      const auto name = requirement.canonical_name();
      if (!m_followed
               .insert(
                   {variant, name, requirement.specifier.str(), target.python, target.tags.arch})
               .second)
        continue;
      const auto* page = dependency_page(variant, name);
      if (page == nullptr) {
        m_missing.insert(name);
        continue;
      }
      const index_client::CandidateFilter filter{name, requirement.specifier, variant, false,
                                                 std::nullopt};
      const auto fitting =
          index_client::collect_candidates(*page, filter, target.tags, target.priority).fitting;
      if (fitting.empty()) {
        m_plan.notes.push_back(variant + ": nothing on the index satisfies " + requirement.str() +
                               " for Python " + target.python + " on " + target.tags.arch);
        continue;
      }
      if (add(variant, name, fitting.front().link, true))
        m_queue.emplace_back(variant, fitting.front().link, &target);
    }
  }

  // download.pytorch.org lists dependencies on each variant's pages and
  // keeps most of them at the root; a spec may name another index.
  const index::ProjectPage* dependency_page(const std::string& variant, const std::string& name) {
    if (const auto found = m_index.variant_page(variant, name)) return found->page;
    if (!m_spec.dependency_index) return nullptr;
    return project_page(*m_spec.dependency_index + "/" + name + "/");
  }

 private:
  const MirrorSpec& m_spec;
  net::Fetcher& m_fetcher;
  index_client::IndexLayout m_index;  // the spec's index, in whatever shape it is served
  [[maybe_unused]] Reporter& m_reporter;
  const KnownMetadata& m_known;
  std::vector<Target> m_targets;
  MirrorPlan m_plan;
  std::map<std::string, std::optional<index::ProjectPage>> m_pages;
  std::map<std::string, pep::CoreMetadata> m_metadata;
  std::set<std::pair<std::string, std::string>> m_listed;
  std::set<std::tuple<std::string, std::string, std::string, std::string, std::string>> m_followed;
  std::deque<std::tuple<std::string, index::Link, const Target*>> m_queue;
  std::set<std::string> m_missing;                              // required projects no page lists
  std::map<std::string, std::vector<std::string>> m_unmatched;  // package -> each variant's why
};

}  // namespace

std::vector<std::string> select_variants(const VariantSelection& selection,
                                         const std::vector<std::string>& available) {
  std::set<std::string> out(selection.names.begin(), selection.names.end());
  for (const auto& variant : available) {
    if (const auto cuda = index_client::cuda_version_of_variant(variant);
        cuda && in_range(selection.cuda, *cuda))
      out.insert(variant);
    if (variant.starts_with("rocm") && in_range(selection.rocm, variant.substr(4)))
      out.insert(variant);
  }
  return {out.begin(), out.end()};
}

MirrorPlan plan_mirror(const MirrorSpec& spec, net::Fetcher& fetcher, Reporter& reporter,
                       const KnownMetadata& known) {
  return Planner(spec, fetcher, reporter, known).run();
}

}  // namespace wheelmod::mirror
