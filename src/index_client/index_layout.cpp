#include "index_client/index_layout.hpp"

#include <algorithm>

#include "core/errors.hpp"
#include "core/strings.hpp"
#include "core/url.hpp"
#include "index_client/accelerator.hpp"
#include "index_client/project_page.hpp"
#include "pep/name.hpp"

namespace wheelmod::index_client {

namespace {

// The name of the directory that holds the file at `url` ("cu128" for
// `https://download-r2.pytorch.org/whl/cu128/torch-…whl`), percent-decoded; "" at the top.
std::string directory_of(std::string_view url) {
  const Url parsed{std::string(url)};
  const auto path = parsed.path();
  const auto last = path.rfind('/');
  if (last == std::string_view::npos || last == 0) return {};
  const auto before = path.rfind('/', last - 1);
  const auto start = before == std::string_view::npos ? 0 : before + 1;
  return percent_decode(path.substr(start, last - start));
}

bool is_variant_name(std::string_view name) {
  return !name.empty() && classify_directory(name) == DirectoryKind::variant;
}

// PEP 503: "All URLs which respond with an HTML5 page MUST end with a /"; a listing's files
// (index.html, wheelmod-mirror.json) are no projects.
bool is_directory_entry(const index::RootEntry& entry) {
  return without_fragment(entry.url).ends_with('/');
}

std::string page_answer(const index::ProjectPage& page) {
  const auto files = page.links.size();
  return "a page of " + std::to_string(files) + (files == 1 ? " file" : " files");
}

}  // namespace

std::string local_label(std::string_view filename) {
  // name-version(+label)-...: the version is the second '-'-separated part (PEP 427 escapes '-'
  // inside both as '_').
  const auto first = filename.find('-');
  if (first == std::string_view::npos) return {};
  const auto second = filename.find('-', first + 1);
  const auto version = filename.substr(
      first + 1, second == std::string_view::npos ? std::string_view::npos : second - first - 1);
  const auto plus = version.find('+');
  return plus == std::string_view::npos ? std::string() : ascii_lower(version.substr(plus + 1));
}

bool belongs_to_variant(const index::Link& link, std::string_view variant) {
  if (const auto label = local_label(link.filename); is_variant_name(label))
    return label == variant;
  const auto directory = directory_of(link.url);
  if (classify_directory(directory) != DirectoryKind::other) return directory == variant;
  return true;
}

std::set<std::string> listed_variants(const index::ProjectPage& page) {
  std::set<std::string> names;
  for (std::size_t i = 0; i < page.links.size(); ++i) {
    if (auto label = local_label(page.links.filename(i)); is_variant_name(label))
      names.insert(std::move(label));
    else if (auto directory = directory_of(page.links.url(i)); is_variant_name(directory))
      names.insert(std::move(directory));
  }
  return names;
}

IndexLayout::IndexLayout(std::string root, net::Fetcher& fetcher)
    : m_root(std::move(root)), m_fetcher(fetcher) {
  while (m_root.ends_with('/')) m_root.pop_back();
}

const IndexLayout::Fetched& IndexLayout::fetch(const std::string& url, const std::string& project) {
  auto [it, inserted] = m_pages.try_emplace(url);
  if (inserted) {
    auto answer = ask_project_page(m_fetcher, url);
    it->second.answer = answer.page ? page_answer(*answer.page) : std::move(answer.absent);
    it->second.page = std::move(answer.page);
    m_probes[project].push_back({mask_credentials(url), it->second.answer});
  }
  return it->second;
}

const std::vector<index::RootEntry>& IndexLayout::listing(const std::string& url) {
  auto [it, inserted] = m_listings.try_emplace(url);
  if (!inserted) return it->second;
  // A hint only: whatever goes wrong here is said in the probes, never thrown.
  std::string answer;
  try {
    const auto response = m_fetcher.ask_page(url, k_page_accept);
    if (!response.page) {
      answer = response.absent;
    } else if (response.page->content_type == "application/vnd.pypi.simple.v1+json") {
      if (const auto names = index::parse_root_json(response.page->body))
        for (const auto& name : *names)
          it->second.push_back({name, join_url(url, percent_encode_segment(name) + "/")});
      answer = "a project list of " + std::to_string(it->second.size()) + " names";
    } else {
      const auto base = response.page->effective_url.empty() ? url : response.page->effective_url;
      if (auto entries = index::parse_root_listing(response.page->body, base))
        it->second = std::move(*entries);
      answer = "a listing of " + std::to_string(it->second.size()) + " entries";
    }
  } catch (const Error& error) {
    // The cause may carry the server's reason phrase: shown, but never a control character.
    answer = error.cause();
    for (char& c : answer)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  m_listing_probes.push_back({mask_credentials(url), std::move(answer)});
  return it->second;
}

std::optional<std::string> IndexLayout::listed_url(const std::string& listing_url,
                                                   const std::string& project) {
  for (const auto& entry : listing(listing_url)) {
    if (!is_directory_entry(entry) || pep::canonicalize_name(entry.name) != project) continue;
    // Only a page below the index root, and a URL fit to print: a listing is a hint, and may
    // not send wheelmod to another server or to this machine's files.
    if (!entry.url.starts_with(m_root + "/") || std::ranges::any_of(entry.url, [](char c) {
          return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f;
        }))
      continue;
    return entry.url;
  }
  return std::nullopt;
}

const index::ProjectPage* IndexLayout::project_page(const std::string& project) {
  if (const auto it = m_project_pages.find(project); it != m_project_pages.end()) return it->second;
  const auto url = join_url(m_root, project + "/");
  const index::ProjectPage* found = nullptr;
  if (const auto& fetched = fetch(url, project); fetched.page) {
    found = &*fetched.page;
  } else if (const auto other = listed_url(m_root + "/", project); other && *other != url) {
    // A static tree whose directory is spelled `Torch/` or `nvidia_cublas_cu12/`: pip asks for
    // the normalised name only, which such a tree does not serve.
    if (const auto& spelled = fetch(*other, project); spelled.page) found = &*spelled.page;
  }
  m_project_pages[project] = found;
  return found;
}

const std::set<std::string>* IndexLayout::listed_variants(const std::string& project) {
  auto [it, inserted] = m_listed.try_emplace(project);
  if (inserted) {
    if (const auto* page = project_page(project))
      if (auto names = index_client::listed_variants(*page); !names.empty())
        it->second = std::move(names);
  }
  return it->second ? &*it->second : nullptr;
}

std::set<std::string> IndexLayout::listed_directories() {
  std::set<std::string> out;
  for (const auto& entry : listing(m_root + "/"))
    if (is_directory_entry(entry) && is_variant_name(entry.name)) out.insert(entry.name);
  return out;
}

std::optional<VariantPage> IndexLayout::variant_page(const std::string& variant,
                                                     const std::string& project) {
  const auto url = join_url(m_root, variant + "/" + project + "/");
  if (const auto& fetched = fetch(url, project); fetched.page)
    return VariantPage{&*fetched.page, VariantSource::variant_directory};
  const auto key = std::pair{variant, project};
  if (const auto it = m_filtered.find(key); it != m_filtered.end())
    return VariantPage{&it->second, VariantSource::project_page};
  if (const auto* page = project_page(project)) {
    index::ProjectPage filtered{page->url, page->name, {}};
    for (const auto& link : page->links)
      if (belongs_to_variant(link, variant)) (void)filtered.links.add(link);
    if (!filtered.links.empty()) {
      const auto& stored = m_filtered.emplace(key, std::move(filtered)).first->second;
      return VariantPage{&stored, VariantSource::project_page};
    }
  }
  return std::nullopt;
}

std::vector<PageProbe> IndexLayout::probes(const std::string& project) const {
  std::vector<PageProbe> out;
  if (const auto it = m_probes.find(project); it != m_probes.end()) out = it->second;
  out.insert(out.end(), m_listing_probes.begin(), m_listing_probes.end());
  return out;
}

std::vector<std::string> IndexLayout::known_projects(const std::vector<std::string>& variants) {
  std::set<std::string> names;
  std::set<std::string> directories;  // variant directories the root lists
  const auto add_from = [&](const std::string& url) {
    for (const auto& entry : listing(url)) {
      if (!is_directory_entry(entry) || !pep::is_valid_name(entry.name)) continue;
      if (classify_directory(entry.name) != DirectoryKind::other) {
        directories.insert(entry.name);
        continue;
      }
      if (entry.name != "files") names.insert(pep::canonicalize_name(entry.name));
    }
  };
  add_from(m_root + "/");
  // A root that lists no project (a listing of variant directories, or none): the variants' own
  // root pages, as wheelmod's mirror writes them; those the listing shows, when it shows some.
  if (names.empty())
    for (const auto& variant : variants)
      if (directories.empty() || directories.contains(variant))
        add_from(join_url(m_root, variant + "/"));
  return {names.begin(), names.end()};
}

}  // namespace wheelmod::index_client
