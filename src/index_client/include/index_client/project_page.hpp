// Fetching and parsing one project page of an index, the way pip and uv
// ask for it (PEP 691 content negotiation: JSON preferred, HTML accepted).
#pragma once

#include <optional>
#include <string>

#include "index/page.hpp"
#include "net/fetcher.hpp"

namespace wheelmod::index_client {

/// The page at `url`, nullopt when the index has none (404/403, no such file). Throws
/// IntegrityError when it is not a valid page, IoError when it cannot be fetched.
std::optional<index::ProjectPage> fetch_project_page(net::Fetcher& fetcher, const std::string& url);

}  // namespace wheelmod::index_client
