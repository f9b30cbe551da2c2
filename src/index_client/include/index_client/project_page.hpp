// Fetching and parsing one project page of an index, the way pip and uv
// ask for it (PEP 691 content negotiation: JSON preferred, HTML accepted).
#pragma once

#include <optional>
#include <string>

#include "index/page.hpp"
#include "net/fetcher.hpp"

namespace wheelmod::index_client {

/// The Accept header pip and uv send for an index page (PEP 691 "Content negotiation": JSON
/// preferred, HTML accepted).
inline constexpr std::string_view k_page_accept =
    "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, "
    "text/html;q=0.01";

/// A project page, or what the index answered instead.
struct ProjectPageAnswer {
  std::optional<index::ProjectPage> page;
  std::string absent;  // "HTTP 404", "HTTP 403", "no such file" when there is no page
};

/// The page at `url`, nullopt when the index has none (404/403, no such file). Throws
/// IntegrityError when it is not a valid page, IoError when it cannot be fetched.
std::optional<index::ProjectPage> fetch_project_page(net::Fetcher& fetcher, const std::string& url);

/// fetch_project_page, saying what answered when there is no page.
ProjectPageAnswer ask_project_page(net::Fetcher& fetcher, const std::string& url);

}  // namespace wheelmod::index_client
