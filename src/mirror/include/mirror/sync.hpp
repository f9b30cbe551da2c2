// One `wheelmod mirror` run: plan what the spec selects, compare with the manifest, download what
// is new (through the fetch machinery: parallel, resumable, verified), write each wheel's
// `.metadata`, the PEP 503 pages and the manifest, prune, or re-hash everything (--verify). A lock
// in DIR refuses a second run on the same mirror.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/reporter.hpp"
#include "mirror/spec.hpp"
#include "net/download.hpp"
#include "net/fetcher.hpp"

namespace wheelmod::mirror {

enum class MirrorMode { sync, dry_run, verify };

struct MirrorOptions {
  std::filesystem::path dest;
  MirrorMode mode = MirrorMode::sync;
  bool prune = false;   // remove stored files the spec no longer selects
  bool repair = false;  // with verify: re-fetch corrupt files
  net::DownloadOptions download;
  net::FetcherOptions fetcher;
  /// Also lay the wheels out as an EasyBuild sourcepath, `<dir>/<letter>/<Name>/extensions/<file>`
  /// for each name (obtain_file's place for extension sources), as hard links where possible.
  std::optional<std::filesystem::path> eb_sourcepath;
  std::vector<std::string> eb_names = {"PyTorch", "PyTorch-bundle"};
};

enum class ChangeKind {
  add,       // selected and not stored yet (or stored but missing/damaged)
  keep,      // stored and still selected
  stale,     // stored, no longer selected, kept (no --prune)
  remove,    // stored, no longer selected, removed (--prune)
  conflict,  // upstream now gives another sha256 under the same name: kept aside
  corrupt,   // --verify: the stored bytes do not match the manifest
  repaired,  // --verify --repair: fetched again and verified
};
std::string_view change_text(ChangeKind kind);

struct MirrorChange {
  ChangeKind kind = ChangeKind::add;
  std::string filename;
  std::string project;
  std::optional<std::uint64_t> size;  // unknown for a new file the index gives no size for
  std::string detail;                 // why (conflict: both hashes; corrupt: what differs)
};

struct MirrorReport {
  std::vector<std::string> variants;
  std::vector<MirrorChange> changes;  // sorted by kind, then file name
  std::vector<std::string> notes;
  std::uint64_t received = 0;            // wheel bytes off the network in this run
  std::size_t downloads = 0;             // wheels fetched (whole or resumed) in this run
  std::uint64_t downloaded_bytes = 0;    // their sizes (received counts network bytes only)
  std::size_t pages_written = 0;         // index pages rewritten (0 for an unchanged mirror)
  std::uint64_t page_requests = 0;       // requests for pages and metadata sent upstream
  std::uint64_t pages_not_modified = 0;  // of those, pages the cache had (304)
  std::size_t metadata_fetched = 0;      // core metadata files read upstream
  std::vector<Error> failures;           // downloads that failed (nothing of theirs was listed)
  [[nodiscard]] std::uint64_t bytes(ChangeKind kind) const;
  [[nodiscard]] std::size_t count(ChangeKind kind) const;
};

/// Throws UsageError (exit 2) for a plan over the size limit, IoError (exit 4) when DIR is in use
/// by another run. Failed downloads, conflicts and corrupt files do not stop the run: everything
/// else is done and the report says what went wrong (the caller turns it into exit 4 or 5 after
/// printing it).
MirrorReport run_mirror(const MirrorSpec& spec, const MirrorOptions& options, Reporter& reporter);

}  // namespace wheelmod::mirror
