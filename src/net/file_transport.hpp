// Private to wheelmod_net: file:// URLs and plain paths, read from disk.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>

#include "net/fetcher.hpp"

namespace wheelmod::net {

/// The local file a URL names: `file://[localhost]/p` (percent-decoded) or
/// a plain path; nullopt for http(s). Throws IoError for other schemes.
std::optional<std::filesystem::path> local_path_of(std::string_view url);

enum class LocalTarget {
  page,  // a directory (or a URL ending in '/') means its index.html, as a web server serves it
  file,
};

/// The file's bytes; nullopt when it does not exist. Throws IoError on
/// other failures (permissions, I/O errors), naming `url`.
std::optional<Response> read_local(const std::filesystem::path& path, std::string_view url,
                                   LocalTarget target);

/// Bytes [offset, offset + length) of the file (a suffix when offset < 0),
/// status 206, total_size = the file size. Throws IoError when the file is
/// missing or the range starts past its end.
Response read_local_range(const std::filesystem::path& path, std::string_view url,
                          std::int64_t offset, std::uint64_t length);

}  // namespace wheelmod::net
