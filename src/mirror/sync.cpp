#include "mirror/sync.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <system_error>

#include "core/dir_lock.hpp"
#include "core/files.hpp"
#include "core/url.hpp"
#include "hash/sha256.hpp"
#include "index_client/metadata_source.hpp"
#include "layout.hpp"
#include "manifest.hpp"
#include "plan.hpp"
#include "tree.hpp"

namespace wheelmod::mirror {

namespace fs = std::filesystem;

namespace {

// One file the plan selects, with every variant that lists it.
struct Selected {
  std::string project;
  index::Link link;
  std::set<std::string> variants;
};

// By where each file is kept (its upstream path), with every variant listing it.
std::map<std::string, Selected> by_storage_path(const MirrorPlan& plan, const std::string& index) {
  std::map<std::string, Selected> out;
  for (const auto& file : plan.files) {
    auto [it, inserted] =
        out.try_emplace(storage_path(file.link.url, index), Selected{file.project, file.link, {}});
    it->second.variants.insert(file.variant);
  }
  return out;
}

DirectoryLock lock_mirror(const fs::path& dest) {
  return DirectoryLock::acquire(dest, k_lock_name, [&](const std::string& line) {
    throw IoError(dest.string(), line.substr(0, line.find("; waiting")),
                  "another `wheelmod mirror` is running on this directory; wait for it to end");
  });
}

void create_parent(const fs::path& file) {
  std::error_code error;
  fs::create_directories(file.parent_path(), error);
  if (error) throw IoError(file.parent_path().string(), "cannot create: " + error.message());
}

// What a killed run leaves: write_if_changed's ".NAME.tmp-PID" beside a
// page, a .metadata file or the manifest, which no later run would reuse
// (another PID) or remove. The mirror's lock is held: no live run is filling
// one.
void remove_leftover_temporaries(const fs::path& dest) {
  std::vector<fs::path> leftovers;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(dest, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (it->is_symlink(error) || !it->is_regular_file(error)) continue;
    const std::string name = it->path().filename().string();
    const auto at = name.rfind(".tmp-");
    if (name.front() != '.' || at == std::string::npos || at == 0 || at + 5 == name.size())
      continue;
    if (std::all_of(name.begin() + static_cast<std::ptrdiff_t>(at + 5), name.end(),
                    [](char c) { return c >= '0' && c <= '9'; }))
      leftovers.push_back(it->path());
  }
  for (const auto& file : leftovers) fs::remove(file, error);  // a later run tries again
}

bool present_with_size(const fs::path& file, std::uint64_t size) {
  std::error_code error;
  return fs::is_regular_file(file, error) && fs::file_size(file, error) == size && !error;
}

class Sync {
 public:
  Sync(const MirrorSpec& spec, const MirrorOptions& options, Reporter& reporter)
      : m_spec(spec), m_options(options), m_reporter(reporter), m_layout{options.dest} {}

  MirrorReport run() {
    if (m_options.mode != MirrorMode::dry_run) remove_leftover_temporaries(m_options.dest);
    m_manifest = read_manifest(m_options.dest);
    for (const auto& [filename, entry] : m_manifest.files) {
      m_managed.insert(entry.variants.begin(), entry.variants.end());
      m_managed_projects.insert(entry.project);
    }
    if (m_options.mode == MirrorMode::verify) {
      verify();
    } else {
      net::FetcherOptions fetcher_options = m_options.fetcher;
      // The page cache makes an unchanged re-run a round of 304s; a dry run
      // of a mirror that does not exist yet leaves no directory behind.
      if (m_options.mode == MirrorMode::sync || fs::exists(m_options.dest))
        fetcher_options.cache_dir = m_layout.http_cache();
      net::Fetcher fetcher(fetcher_options);
      const auto plan = plan_mirror(m_spec, fetcher, m_reporter, [this](const index::Link& link) {
        return stored_metadata(link);
      });
      m_report.variants = plan.variants;
      m_report.notes = plan.notes;
      m_report.metadata_fetched = plan.metadata_fetched;
      compare(by_storage_path(plan, m_spec.index));
      check_size_limit(fetcher);
      if (m_options.mode == MirrorMode::sync) {
        download();
        if (m_options.prune) prune();
      }
      m_report.page_requests = fetcher.stats().requests;
      m_report.pages_not_modified = fetcher.stats().not_modified;
    }
    if (m_options.mode != MirrorMode::dry_run) publish();
    std::ranges::sort(m_report.changes, [](const MirrorChange& a, const MirrorChange& b) {
      return std::tie(a.kind, a.filename) < std::tie(b.kind, b.filename);
    });
    return std::move(m_report);
  }

 private:
  // The .metadata this mirror wrote for the same bytes (same name, and the
  // same sha256 when upstream gives one).
  std::optional<std::string> stored_metadata(const index::Link& link) const {
    const auto path = storage_path(link.url, m_spec.index);
    const auto stored = m_manifest.files.find(path);
    if (stored == m_manifest.files.end() || !stored->second.metadata_sha256) return std::nullopt;
    if (const auto upstream = link.sha256(); upstream && *upstream != stored->second.sha256)
      return std::nullopt;
    try {
      return read_file_if_exists(m_layout.metadata_file(path));
    } catch (const IoError&) {
      return std::nullopt;  // fetched again, as when it is missing
    }
  }

  void change(ChangeKind kind, const std::string& filename, const std::string& project,
              std::optional<std::uint64_t> size, std::string detail = {}) {
    m_report.changes.push_back({kind, filename, project, size, std::move(detail)});
  }

  // Sorts every selected and stored file into add / keep / conflict /
  // stale / remove. Nothing is written here: --dry-run stops after it.
  void compare(std::map<std::string, Selected> selected) {
    for (auto& [filename, file] : selected) {
      const auto stored = m_manifest.files.find(filename);
      const auto upstream = file.link.sha256();
      if (stored != m_manifest.files.end()) {
        if (upstream && *upstream != stored->second.sha256) {
          change(ChangeKind::conflict, filename, file.project, file.link.size,
                 "the mirror has sha256 " + stored->second.sha256 + ", upstream now gives " +
                     *upstream + "; the mirrored file stays, upstream's is put in " +
                     m_layout.conflict_file(filename, *upstream).string());
          m_conflicts.emplace_back(filename, std::move(file));
          continue;
        }
        if (present_with_size(m_layout.file(filename), stored->second.size)) {
          change(ChangeKind::keep, filename, file.project, stored->second.size);
          auto& entry = stored->second;
          std::set<std::string> variants(entry.variants.begin(), entry.variants.end());
          variants.insert(file.variants.begin(), file.variants.end());
          entry.variants.assign(variants.begin(), variants.end());
          m_selected_names.insert(filename);
          continue;
        }
      }
      change(ChangeKind::add, filename, file.project, file.link.size);
      m_selected_names.insert(filename);
      m_to_fetch.emplace_back(filename, std::move(file));
    }
    for (const auto& [filename, entry] : m_manifest.files) {
      if (m_selected_names.contains(filename) || is_conflict(filename)) continue;
      change(m_options.prune ? ChangeKind::remove : ChangeKind::stale, filename, entry.project,
             entry.size);
    }
  }

  bool is_conflict(const std::string& stored) const {
    return std::ranges::any_of(m_conflicts, [&](const auto& c) { return c.first == stored; });
  }

  void check_size_limit(net::Fetcher& fetcher) {
    if (!m_spec.size_limit && m_options.mode != MirrorMode::dry_run) return;
    // HTML pages give no sizes (PEP 700 is JSON only): a one-byte range
    // request answers the total (Content-Range), for new files only, when
    // a limit or a plan needs them.
    for (auto& change : m_report.changes)
      if (change.kind == ChangeKind::add && !change.size)
        for (const auto& [stored, file] : m_to_fetch)
          if (stored == change.filename)
            change.size = fetcher.get_range(file.link.url, 0, 1).total_size;
    if (!m_spec.size_limit) return;
    const auto total = m_report.bytes(ChangeKind::add) + m_report.bytes(ChangeKind::keep);
    if (total > *m_spec.size_limit)
      throw UsageError(m_spec.file.string(),
                       "the selection needs " + std::to_string(total) +
                           " bytes, over size_limit (" + std::to_string(*m_spec.size_limit) + ")",
                       "narrow the spec (versions, variants, Python versions) or raise size_limit; "
                       "--dry-run lists the files");
  }

  void download() {
    std::vector<net::DownloadRequest> requests;
    for (const auto& [stored, file] : m_to_fetch)
      requests.push_back({file.link.url, m_layout.file(stored), file.link.sha256(), file.link.size,
                          file.link.filename});
    for (const auto& [stored, file] : m_conflicts)
      requests.push_back({file.link.url, m_layout.conflict_file(stored, *file.link.sha256()),
                          file.link.sha256(), file.link.size,
                          file.link.filename + " (upstream's new bytes)"});
    for (const auto& request : requests) create_parent(request.destination);
    auto batch = net::download_all(requests, m_options.download, m_reporter);
    m_report.received = batch.received;
    for (auto& failure : batch.failures) m_report.failures.push_back(std::move(failure));
    for (std::size_t i = 0; i < m_to_fetch.size(); ++i) {
      const auto& result = batch.results[i];
      const auto& [stored, file] = m_to_fetch[i];
      if (!result) {
        m_selected_names.erase(stored);
        continue;
      }
      if (result->outcome == net::DownloadOutcome::downloaded ||
          result->outcome == net::DownloadOutcome::resumed) {
        ++m_report.downloads;
        m_report.downloaded_bytes += result->size;
      }
      for (auto& change : m_report.changes)  // the size is known now
        if (change.kind == ChangeKind::add && change.filename == stored) change.size = result->size;
      ManifestFile entry;
      entry.filename = stored;
      entry.project = file.project;
      entry.url = without_credentials(file.link.url);  // the manifest is published: no secret
      entry.sha256 = result->sha256;
      entry.sha256_from_index = result->sha256_from_index;
      entry.size = result->size;
      entry.fetched = utc_now();
      entry.requires_python = file.link.requires_python;
      entry.variants.assign(file.variants.begin(), file.variants.end());
      m_manifest.files[entry.filename] = std::move(entry);
    }
  }

  void prune() {
    for (auto it = m_manifest.files.begin(); it != m_manifest.files.end();) {
      if (m_selected_names.contains(it->first) || is_conflict(it->first)) {
        ++it;
        continue;
      }
      std::error_code error;
      fs::remove(m_layout.file(it->first), error);
      fs::remove(m_layout.metadata_file(it->first), error);
      it = m_manifest.files.erase(it);
    }
  }

  void verify() {
    std::vector<net::DownloadRequest> repairs;
    for (const auto& [filename, entry] : m_manifest.files) {
      const auto path = m_layout.file(filename);
      std::error_code error;
      std::string problem;
      if (!fs::is_regular_file(path, error))
        problem = "missing";
      else if (const auto digest = hash::sha256_file(path); digest.size != entry.size)
        problem = "size " + std::to_string(digest.size) + ", the manifest says " +
                  std::to_string(entry.size);
      else if (const auto hex = hash::to_hex(digest.sha256); hex != entry.sha256)
        problem = "sha256 " + hex + ", the manifest says " + entry.sha256;
      if (problem.empty()) {
        change(ChangeKind::keep, filename, entry.project, entry.size);
        continue;
      }
      change(ChangeKind::corrupt, filename, entry.project, entry.size, problem);
      if (m_options.repair) {
        fs::remove(path, error);  // the downloader would take a wrong file as a .part to resume
        // Stored without credentials; the spec's index URL gives them again for its host.
        repairs.push_back({with_credentials_of(entry.url, m_spec.index), path, entry.sha256,
                           entry.size, filename});
      }
    }
    if (repairs.empty()) return;
    for (const auto& request : repairs) create_parent(request.destination);
    auto batch = net::download_all(repairs, m_options.download, m_reporter);
    m_report.received = batch.received;
    for (auto& failure : batch.failures) m_report.failures.push_back(std::move(failure));
    for (std::size_t i = 0; i < repairs.size(); ++i)
      if (batch.results[i]) {
        change(ChangeKind::repaired, repairs[i].label,
               m_manifest.files.at(repairs[i].label).project, batch.results[i]->size);
        ++m_report.downloads;
      }
  }

  // The core metadata of each stored wheel (PEP 658), then the pages, the
  // sourcepath links and the manifest — after every listed file is verified.
  void publish() {
    for (auto& [filename, entry] : m_manifest.files) {
      const auto metadata_path = m_layout.metadata_file(filename);
      if (entry.metadata_sha256 && fs::exists(metadata_path)) continue;
      index::Link local;
      local.filename = base_name(filename);
      local.url = m_layout.file(filename).string();
      const auto text = index_client::fetch_wheel_metadata(m_local, local).text;
      index_client::checked_metadata(local.filename, text);  // before any page names the file
      write_if_changed(metadata_path, text, Flush::later);
      hash::Sha256 hasher;
      hasher.update(text);
      entry.metadata_sha256 = hash::to_hex(hasher.finish());
    }
    m_report.pages_written += write_pages(m_layout, m_manifest, m_managed, m_managed_projects);
    if (m_options.eb_sourcepath) {
      const auto& sourcepath = *m_options.eb_sourcepath;
      // One warning per variant whose files had to go into a tree of their own.
      std::map<std::string, std::vector<SourcepathClash>> by_variant;
      for (auto& clash : link_sourcepath(m_layout, m_manifest, sourcepath, m_options.eb_names))
        by_variant[clash.variant].push_back(std::move(clash));
      for (const auto& [variant, clashes] : by_variant) {
        std::string files;
        for (const auto& clash : clashes)
          files += (files.empty() ? "" : ", ") + clash.file_name + " (also " + clash.first_variant +
                   "'s)";
        // A note of the report: in the text and the JSON output, under -q too.
        m_report.notes.push_back(
            variant + " has different files under names another variant's files have: " + files +
            "; they are in " + clashes.front().variant_sourcepath.string() + ": build the " +
            variant + " easyconfigs with `eb --sourcepath " +
            clashes.front().variant_sourcepath.string() + ":" + sourcepath.string() +
            " ...` so that EasyBuild finds them first");
      }
    }
    m_manifest.source_index = without_credentials(m_spec.index);
    // The wheels and .metadata files reach the disk before the manifest
    // that vouches for them (one syncfs instead of an fsync per file).
    flush_file_system(m_options.dest);
    write_manifest(m_options.dest, m_manifest);
  }

  const MirrorSpec& m_spec;
  const MirrorOptions& m_options;
  Reporter& m_reporter;
  MirrorLayout m_layout;
  net::Fetcher m_local;  // reads stored wheels (plain paths) for their METADATA
  Manifest m_manifest;
  MirrorReport m_report;
  std::vector<std::pair<std::string, Selected>> m_to_fetch;  // by storage path
  std::vector<std::pair<std::string, Selected>> m_conflicts;
  std::set<std::string> m_selected_names;
  std::set<std::string> m_managed;           // variants the mirror served before this run
  std::set<std::string> m_managed_projects;  // projects it served before this run
};

}  // namespace

std::string_view change_text(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::add:
      return "add";
    case ChangeKind::keep:
      return "keep";
    case ChangeKind::stale:
      return "stale";
    case ChangeKind::remove:
      return "remove";
    case ChangeKind::conflict:
      return "conflict";
    case ChangeKind::corrupt:
      return "corrupt";
    case ChangeKind::repaired:
      return "repaired";
  }
  return "add";
}

std::uint64_t MirrorReport::bytes(ChangeKind kind) const {
  std::uint64_t total = 0;
  for (const auto& change : changes)
    if (change.kind == kind) total += change.size.value_or(0);
  return total;
}

std::size_t MirrorReport::count(ChangeKind kind) const {
  return static_cast<std::size_t>(
      std::ranges::count_if(changes, [kind](const MirrorChange& c) { return c.kind == kind; }));
}

MirrorReport run_mirror(const MirrorSpec& spec, const MirrorOptions& options, Reporter& reporter) {
  // A dry run writes nothing, not even the lock (DIR may not exist yet).
  DirectoryLock lock;
  if (options.mode != MirrorMode::dry_run) lock = lock_mirror(options.dest);
  return Sync(spec, options, reporter).run();
}

}  // namespace wheelmod::mirror
