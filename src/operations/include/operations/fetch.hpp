// `wheelmod fetch`: the wheels a resolution chose (or a reviewed JSON report lists), downloaded
// into a directory in parallel, verified against the index's SHA-256 as they arrive, resumable,
// and shared through the content-addressed cache.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/reporter.hpp"
#include "net/download.hpp"
#include "operations/selection.hpp"
#include "resolve/report.hpp"

namespace wheelmod::operations {

struct FetchOptions {
  Selection selection;      // SPEC..., or
  std::string from_report;  // a `wheelmod resolve --format json` report
  std::string dest;
  DownloadSettings download;
  bool require_hashes = false;  // refuse wheels the index gives no SHA-256 for
};

struct FetchResult {
  resolve::ResolveReport report;
  std::filesystem::path dest;
  net::DownloadBatch batch;           // one result per report wheel, in order
  std::vector<std::string> warnings;  // also told to the reporter
  std::optional<Error> failure;       // some file failed: the caller throws it after the output
};

/// Throws UsageError for bad options or an unreadable report, IntegrityError
/// for --require-hashes, and what the resolution throws.
FetchResult fetch(const FetchOptions& options, Reporter& reporter);

}  // namespace wheelmod::operations
