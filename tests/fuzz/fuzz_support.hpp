// Shared pieces of the libFuzzer targets: the input as text, a failed
// property reported as a crash (so libFuzzer keeps the input), and files
// for the readers that take a path.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include <sys/mman.h>

namespace wheelmod::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// A property that must hold for every input (a round trip, an order)
/// failed: abort, so that libFuzzer saves the input as a crash.
[[noreturn]] inline void property_failed(const char* property, const std::string& detail) {
  std::fprintf(stderr, "property violated: %s\n%s\n", property, detail.c_str());
  std::abort();
}

#define WHEELMOD_FUZZ_CHECK(condition, detail)                                 \
  do {                                                                         \
    if (!(condition)) ::wheelmod::fuzz::property_failed(#condition, (detail)); \
  } while (false)

/// The input as an anonymous in-memory file, reachable by path
/// (/proc/self/fd/N) for readers that open files themselves; closed when
/// this goes out of scope.
class MemoryFile {
 public:
  explicit MemoryFile(std::span<const std::uint8_t> bytes) : m_fd(::memfd_create("fuzz", 0)) {
    if (m_fd < 0) std::abort();
    for (std::size_t done = 0; done < bytes.size();) {
      const auto wrote = ::write(m_fd, bytes.data() + done, bytes.size() - done);
      if (wrote <= 0) std::abort();
      done += static_cast<std::size_t>(wrote);
    }
  }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  ~MemoryFile() { ::close(m_fd); }
  [[nodiscard]] std::filesystem::path path() const {
    return "/proc/self/fd/" + std::to_string(m_fd);
  }

 private:
  int m_fd;
};

/// A directory of this process under /dev/shm (tmpfs), made once; for
/// readers that need a real name (a wheel's file name, a config dir).
inline const std::filesystem::path& scratch_dir() {
  // Never destroyed, so the exit handler that removes it can still read it.
  static const auto* dir = [] {
    auto* path = new std::filesystem::path(std::filesystem::path("/dev/shm") /
                                           ("wheelmod-fuzz-" + std::to_string(::getpid())));
    std::filesystem::create_directories(*path);
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(scratch_dir(), ignored);
    });
    return path;
  }();
  return *dir;
}

}  // namespace wheelmod::fuzz
