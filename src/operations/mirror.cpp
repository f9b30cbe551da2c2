#include "operations/mirror.hpp"

#include <chrono>

#include "core/url.hpp"
#include "mirror/spec.hpp"
#include "operations/index_setting.hpp"

namespace wheelmod::operations {

namespace fs = std::filesystem;

namespace {

// What is wrong once the output is out: downloads that failed, upstream
// files that changed under the same name, stored files that are corrupt.
std::optional<Error> failure_of(const mirror::MirrorReport& report, const fs::path& dest) {
  if (!report.failures.empty()) {
    net::DownloadBatch batch;
    batch.failures = report.failures;
    return net::combined_failure(batch);
  }
  if (const auto conflicts = report.count(mirror::ChangeKind::conflict); conflicts > 0)
    return IntegrityError(
        dest.string(),
        std::to_string(conflicts) + " upstream files changed their sha256 under the same name",
        "the mirrored files were kept; compare them with the new bytes under "
        ".wheelmod/conflicts/ and remove the old file from the mirror (and its "
        "manifest entry) only once you trust the new one");
  const auto corrupt = report.count(mirror::ChangeKind::corrupt);
  if (corrupt > report.count(mirror::ChangeKind::repaired))
    return IntegrityError(dest.string(), std::to_string(corrupt) + " stored files are corrupt",
                          "run again with --verify --repair to fetch them again");
  return std::nullopt;
}

}  // namespace

MirrorResult mirror(const MirrorOptions& options, Reporter& reporter) {
  if (options.repair && !options.verify)
    throw UsageError("--repair", "only with --verify",
                     "wheelmod mirror SPEC --dest DIR --verify --repair");
  check_jobs(options.download);
  auto spec = mirror::load_spec(options.spec);
  if (!spec.index_given) {
    // A spec without `index` reads the index configured for every command (index_setting.hpp).
    spec.index = to_url(index_setting("", options.getenv).url);
    while (spec.index.ends_with('/') && !spec.index.ends_with("://")) spec.index.pop_back();
  }
  mirror::MirrorOptions run;
  run.dest = fs::absolute(options.dest).lexically_normal();
  run.mode = options.verify    ? mirror::MirrorMode::verify
             : options.dry_run ? mirror::MirrorMode::dry_run
                               : mirror::MirrorMode::sync;
  run.prune = options.prune;
  run.repair = options.repair;
  run.download.jobs = options.download.jobs;
  run.download.attempts = options.download.retries + 1;
  run.download.max_size = options.download.max_download_size;
  run.fetcher.page_timeout = std::chrono::seconds(options.page_timeout);
  run.download.connection = connection_options(options.connection, options.getenv);
  run.fetcher.connection = connection_options(options.connection, options.getenv);
  if (!options.eb_sourcepath.empty()) run.eb_sourcepath = fs::absolute(options.eb_sourcepath);
  if (!options.eb_names.empty()) run.eb_names = options.eb_names;

  MirrorResult result;
  result.mode = run.mode;
  result.report = mirror::run_mirror(spec, run, reporter);
  result.failure = failure_of(result.report, run.dest);
  return result;
}

}  // namespace wheelmod::operations
