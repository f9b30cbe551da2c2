// How wheelmod talks to servers, the same for index pages (Fetcher) and
// wheel downloads (download_all).
#pragma once

#include <chrono>
#include <string>

namespace wheelmod::net {

struct ConnectionOptions {
  /// First retry delay; doubled each retry, with jitter; `Retry-After` wins.
  std::chrono::milliseconds backoff{500};
  std::chrono::seconds connect_timeout{20};
  /// Abort a transfer when no byte arrived for this long (not a total timeout).
  std::chrono::seconds stall_timeout{60};
  std::string cacert;  // CA bundle; empty: libcurl's (the system's)
  /// HTTP credentials for hosts a URL gives none for (~/.netrc format); empty: libcurl's default
  /// ($HOME/.netrc). Read optionally: no file, no credentials.
  std::string netrc_file;
  std::string user_agent = "wheelmod";
};

}  // namespace wheelmod::net
