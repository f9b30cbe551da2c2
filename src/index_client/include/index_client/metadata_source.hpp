// Getting a candidate wheel's core metadata (METADATA) with as few bytes as possible: the PEP 658
// `.metadata` file (hash-verified); else HTTP range requests for the zip's central directory and
// the METADATA entry only; else the whole wheel.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "index/page.hpp"
#include "net/fetcher.hpp"
#include "pep/metadata.hpp"

namespace wheelmod::index_client {

enum class MetadataSource { pep658, range_requests, whole_wheel };

/// "PEP 658 .metadata file", "range requests", "whole wheel".
std::string_view describe(MetadataSource source);

struct WheelMetadata {
  std::string text;  // the METADATA file's bytes
  MetadataSource source = MetadataSource::pep658;
  /// Set when a source was passed over for cause: the `.metadata` file did not match the hash the
  /// page gives for it (pytorch/pytorch#197552: a `Checksum-SHA256:` line appended on the CDN).
  std::optional<std::string> warning;
};

/// Fetches the METADATA of `link`'s wheel. A `.metadata` file that does not match the page's hash
/// is not trusted: the METADATA is read from the wheel itself instead (range requests, else the
/// whole file, whose hash the page pins), and `warning` says so. Throws IntegrityError (exit 5)
/// when the wheel has no `*.dist-info/METADATA`, it is corrupt, or the whole wheel does not match
/// its hash; IoError (exit 4) when nothing can be read.
WheelMetadata fetch_wheel_metadata(net::Fetcher& fetcher, const index::Link& link);

/// The names of the entries of `link`'s wheel, from its central directory alone (the end record
/// and the directory by range requests, else the whole wheel, checked against the page's hash).
/// Throws as fetch_wheel_metadata does.
std::vector<std::string> fetch_wheel_entry_names(net::Fetcher& fetcher, const index::Link& link);

/// Throws IntegrityError (exit 5) when `metadata_text` (a wheel's METADATA) is not valid or names
/// another project or version than the wheel's file name `filename` says: one wheel served under
/// other names (a 2.6.0 as 2.6.1...2.6.6) is refused wherever wheelmod reads it, resolve, fetch
/// and mirror alike. Returns the parsed metadata.
pep::CoreMetadata checked_metadata(const std::string& filename, std::string_view metadata_text);

}  // namespace wheelmod::index_client
