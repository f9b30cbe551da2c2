// `wheelmod mirror SPEC.yaml --dest DIR`: an offline copy of the slice of a
// wheel index the spec selects, synced incrementally and served as a static
// PEP 503 tree; or the plan only, or a verification of what is stored.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/reporter.hpp"
#include "mirror/sync.hpp"
#include "operations/selection.hpp"

namespace wheelmod::operations {

struct MirrorOptions {
  std::string spec;  // the YAML file
  std::string dest;
  bool dry_run = false;
  bool prune = false;
  bool verify = false;
  bool repair = false;        // with verify
  std::string eb_sourcepath;  // also link the wheels there
  std::vector<std::string> eb_names;
  DownloadSettings download;
  ConnectionSettings connection;
  unsigned page_timeout = 300;            // seconds an index page may take in all, as Selection's
  Getenv getenv = process_environment();  // the configured index, the CA bundle, netrc
};

struct MirrorResult {
  mirror::MirrorReport report;
  mirror::MirrorMode mode = mirror::MirrorMode::sync;
  std::optional<Error>
      failure;  // failed downloads, conflicts, corrupt files: thrown after the output
};

/// Throws UsageError (options, a bad spec) and what the sync throws.
MirrorResult mirror(const MirrorOptions& options, Reporter& reporter);

}  // namespace wheelmod::operations
