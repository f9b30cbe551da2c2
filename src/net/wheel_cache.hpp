// Private to wheelmod_net: the content-addressed wheel cache. A verified
// file is kept under `<root>/wheels/sha256/ab/abcd…` (its digest is its
// name), so any later fetch of the same bytes — from another index URL, a
// mirror, into another directory — is a link or a copy, not a download.
// The cache is an optimisation: its failures become warnings, and what it
// hands out is verified again, never trusted.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace wheelmod::net {

class WheelCache {
 public:
  /// `root` = the cache directory (`--cache-dir`).
  explicit WheelCache(std::filesystem::path root);

  enum class Placement { linked, copied };
  struct Placed {
    Placement how;
    std::uint64_t size;
  };
  /// Puts the cached file with digest `sha256` at `destination` (a hard
  /// link, else a copy; through a temporary and rename). nullopt when the
  /// cache has no such file, or its bytes do not hash to `sha256` — that
  /// entry is then removed and `problem` says so.
  std::optional<Placed> place(std::string_view sha256, const std::filesystem::path& destination,
                              std::string& problem) const;

  /// Adds the verified `file` under `sha256` (a hard link, else a copy).
  /// Returns "" or, when the cache could not take it, why (a warning).
  std::string store(const std::filesystem::path& file, std::string_view sha256) const;

  [[nodiscard]] std::filesystem::path entry(std::string_view sha256) const;

 private:
  std::filesystem::path m_dir;  // <root>/wheels/sha256
};

}  // namespace wheelmod::net
