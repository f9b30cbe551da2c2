// Getting a candidate wheel's core metadata (METADATA) with as few bytes as possible: the PEP 658
// `.metadata` file (hash-verified); else HTTP range requests for the zip's central directory and
// the METADATA entry only; else the whole wheel.
#pragma once

#include <string>
#include <string_view>

#include "index/page.hpp"
#include "net/fetcher.hpp"

namespace wheelmod::index_client {

enum class MetadataSource { pep658, range_requests, whole_wheel };

/// "PEP 658 .metadata file", "range requests", "whole wheel".
std::string_view describe(MetadataSource source);

struct WheelMetadata {
  std::string text;  // the METADATA file's bytes
  MetadataSource source = MetadataSource::pep658;
};

/// Fetches the METADATA of `link`'s wheel. Throws IntegrityError (exit 5) when a `.metadata` file
/// does not match the page's hash or the wheel has no `*.dist-info/METADATA` or it is corrupt;
/// IoError (exit 4) when nothing can be read.
WheelMetadata fetch_wheel_metadata(net::Fetcher& fetcher, const index::Link& link);

}  // namespace wheelmod::index_client
