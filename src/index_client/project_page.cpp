#include "index_client/project_page.hpp"

#include "core/errors.hpp"
#include "core/url.hpp"

namespace wheelmod::index_client {

std::optional<index::ProjectPage> fetch_project_page(net::Fetcher& fetcher,
                                                     const std::string& url) {
  return ask_project_page(fetcher, url).page;
}

ProjectPageAnswer ask_project_page(net::Fetcher& fetcher, const std::string& url) {
  auto answer = fetcher.ask_page(url, k_page_accept);
  if (!answer.page) return {std::nullopt, std::move(answer.absent)};
  const auto& response = answer.page;
  const bool json = response->content_type == "application/vnd.pypi.simple.v1+json";
  const auto base = response->effective_url.empty() ? url : response->effective_url;
  auto parsed = json ? index::parse_project_json(response->body, base)
                     : index::parse_project_html(response->body, base);
  if (!parsed)
    throw IntegrityError(mask_credentials(url),
                         "the index page is not valid: " + parsed.error().message,
                         "the index or a proxy answered something else than a package page");
  // A page from a server may only send wheelmod to servers: a file:// (or
  // other) link would make it read this machine's files, as the redirects
  // libcurl refuses would (net/http_common.cpp, CURLOPT_REDIR_PROTOCOLS_STR).
  if (Url(base).is_http())
    for (const auto& link : parsed->links)
      if (!Url(link.url).is_http())
        throw IntegrityError(mask_credentials(url),
                             "the index page links " + link.filename + " to " +
                                 mask_credentials(link.url) + ", not to an http(s) URL",
                             "a remote index may only link to http:// and https:// files");
  return {std::move(*parsed), {}};
}

}  // namespace wheelmod::index_client
