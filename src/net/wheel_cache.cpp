#include "wheel_cache.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "core/errors.hpp"
#include "hash/sha256.hpp"
#include "part_file.hpp"

namespace wheelmod::net {

namespace fs = std::filesystem;

WheelCache::WheelCache(fs::path root) : m_dir(std::move(root) / "wheels" / "sha256") {}

fs::path WheelCache::entry(std::string_view sha256) const {
  return m_dir / std::string(sha256.substr(0, 2)) / std::string(sha256);
}

std::optional<WheelCache::Placed> WheelCache::place(std::string_view sha256,
                                                    const fs::path& destination,
                                                    std::string& problem) const {
  const fs::path cached = entry(sha256);
  std::error_code error;
  if (!fs::is_regular_file(cached, error)) return std::nullopt;
  const fs::path temporary = temporary_beside(destination);
  try {
    Placed placed{.how = Placement::linked, .size = 0};
    hash::FileDigest digest;
    if (::link(cached.c_str(), temporary.c_str()) == 0) {
      digest = hash::sha256_file(temporary);
    } else {
      // Another file system (EXDEV) or one without hard links: copy,
      // hashing on the way.
      placed.how = Placement::copied;
      digest = copy_hashing(cached, temporary);
    }
    if (hash::to_hex(digest.sha256) != sha256) {
      fs::remove(temporary, error);
      fs::remove(cached, error);
      problem = "the cached copy " + cached.string() + " was damaged (its SHA-256 is " +
                hash::to_hex(digest.sha256) + "); removed it, downloading again";
      return std::nullopt;
    }
    if (::rename(temporary.c_str(), destination.c_str()) != 0)
      throw IoError(destination.string(),
                    std::string("cannot rename into place: ") + std::strerror(errno));
    placed.size = digest.size;
    return placed;
  } catch (const Error& failure) {
    fs::remove(temporary, error);
    problem = "cannot use the cached copy: " + failure.subject() + ": " + failure.cause();
    return std::nullopt;
  }
}

std::string WheelCache::store(const fs::path& file, std::string_view sha256) const {
  const fs::path cached = entry(sha256);
  std::error_code error;
  if (fs::exists(cached, error)) return {};
  fs::create_directories(cached.parent_path(), error);
  if (error) return "cannot create " + cached.parent_path().string() + ": " + error.message();
  const fs::path temporary = temporary_beside(cached);
  if (::link(file.c_str(), temporary.c_str()) != 0) {
    try {
      copy_hashing(file, temporary);
    } catch (const Error& failure) {
      fs::remove(temporary, error);
      return "cannot add " + file.filename().string() + " to the cache: " + failure.cause();
    }
  }
  // rename(2) is atomic: a concurrent run storing the same digest just
  // replaces one good copy with another.
  if (::rename(temporary.c_str(), cached.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    fs::remove(temporary, error);
    return "cannot add " + file.filename().string() + " to the cache: " + why;
  }
  return {};
}

}  // namespace wheelmod::net
