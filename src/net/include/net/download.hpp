// Downloading wheels: several transfers at once over libcurl's multi interface (kept out of this
// header), SHA-256 computed as bytes arrive, `.part` files renamed only once verified, resumption
// with Range + If-Range, and a content-addressed cache: a wheel once seen is linked, not fetched.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/dir_lock.hpp"
#include "core/errors.hpp"
#include "core/reporter.hpp"
#include "net/connection.hpp"

namespace wheelmod::net {

struct DownloadRequest {
  std::string url;                    // http(s)://, file:// or a path
  std::filesystem::path destination;  // final path; NAME.part beside it while in flight
  std::optional<std::string> sha256;  // lower-case hex from the index; nullopt: none given
  std::optional<std::uint64_t> size;  // from the index, when it says
  std::string label;                  // for progress and messages (the file name)
};

enum class DownloadOutcome {
  downloaded,  // fetched whole in this run
  resumed,     // a .part from an earlier run was completed
  present,     // the destination already held the verified file
  cached,      // linked or copied from the content-addressed cache
};
std::string_view outcome_text(DownloadOutcome outcome);

struct DownloadResult {
  std::filesystem::path path;
  std::string sha256;             // the digest of the file as written (lower-case hex)
  bool sha256_from_index = true;  // false: the index gave none, this one was computed
  std::uint64_t size = 0;
  DownloadOutcome outcome = DownloadOutcome::downloaded;
  std::uint64_t received = 0;  // body bytes off the network in this run (retries included)
  std::optional<std::uint64_t> resumed_from;  // the .part size an earlier run left
  unsigned attempts = 0;                      // requests sent for this file
};

inline constexpr std::uint64_t k_default_max_download_size = 64ULL << 30U;

/// The lock that keeps two downloads into one directory apart (they would write the same
/// `.part` files): taken by every caller of download_all that owns its destination directory,
/// held until the returned lock goes; `on_wait` hears once who holds it. Throws IoError.
DirectoryLock lock_download_directory(const std::filesystem::path& directory,
                                      const std::function<void(const std::string&)>& on_wait);

/// What a file in a download directory is to the downloader: its lock, the working files of a
/// destination (`NAME.part`, `NAME.part.json`: `name` is NAME), or something else.
struct DownloadDirectoryEntry {
  enum class Kind { lock, partial, other } kind = Kind::other;
  std::string name;  // the destination's file name for a partial, else the file's own
};
DownloadDirectoryEntry classify_download_entry(std::string_view file_name);

struct DownloadOptions {
  unsigned jobs = 4;  // transfers at once
  /// Failed requests in a row per file, the first included, before it is given up. A request that
  /// brought at least 1 MiB before it broke is progress and restarts the count (the next resumes
  /// from there); in all, a file gets at most 10 times this many requests.
  unsigned attempts = 5;
  /// The largest file a download may bring, whatever the index, Content-Length or a chunked body
  /// says: a body of unknown size that goes on past it is stopped and its bytes dropped (not kept
  /// for a resume). 64 GiB: CUDA wheels of torch are 2.5 to 4 GiB.
  std::uint64_t max_size = k_default_max_download_size;
  ConnectionOptions connection;
  /// Content-addressed wheel cache root (`<dir>/wheels/sha256/ab/abcd…`); empty = no cache.
  std::filesystem::path cache_dir;
};

/// The results in request order (nullopt where a file failed) and the failed files' errors.
struct DownloadBatch {
  std::vector<std::optional<DownloadResult>> results;
  std::vector<Error> failures;  // IoError (exit 4) or IntegrityError (exit 5)
  std::uint64_t received = 0;   // all body bytes off the network
};

/// Fetches every request, `options.jobs` at a time. Never throws for one file's failure: it leaves
/// nothing at its destination (a .part may stay for a later resume, unless its bytes proved wrong
/// or went past `options.max_size`) and its Error in `failures`. Throws only for a misuse (two
/// requests with one destination) or a failure of the machinery itself.
DownloadBatch download_all(const std::vector<DownloadRequest>& requests,
                           const DownloadOptions& options, Reporter& reporter);

/// The exception to throw for a batch with failures: the only failure as it is, or one error
/// listing them all (exit 5 when any is an integrity failure, else 4).
Error combined_failure(const DownloadBatch& batch);

}  // namespace wheelmod::net
