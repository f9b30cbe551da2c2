#include "resolve/project_page.hpp"

#include "core/errors.hpp"

namespace wheelmod::resolve {

namespace {

// PEP 691 "Content negotiation": JSON preferred, HTML accepted; what pip
// and uv send.
constexpr std::string_view k_accept =
    "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, "
    "text/html;q=0.01";

}  // namespace

std::optional<index::ProjectPage> fetch_project_page(net::Fetcher& fetcher, const std::string& url) {
  const auto response = fetcher.get_page(url, k_accept);
  if (!response) return std::nullopt;
  const bool json = response->content_type == "application/vnd.pypi.simple.v1+json";
  const auto base = response->effective_url.empty() ? url : response->effective_url;
  auto parsed = json ? index::parse_project_json(response->body, base)
                     : index::parse_project_html(response->body, base);
  if (!parsed)
    throw IntegrityError(mask_credentials(url),
                         "the index page is not valid: " + parsed.error().message,
                         "the index or a proxy answered something else than a package page");
  return std::move(*parsed);
}

}  // namespace wheelmod::resolve
