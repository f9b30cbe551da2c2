// Private to wheelmod_net: SHA-256 of a download computed on its own
// thread while the bytes arrive. The transfer thread only copies each
// chunk into a block (memcpy is ~10x faster than SHA-256), so hashing and
// writing to disk overlap instead of adding up; memory is bounded by a
// few blocks per transfer, whatever the file size.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "hash/sha256.hpp"

namespace wheelmod::net {

class StreamHasher {
 public:
  /// Starts the thread. With `prefix`, it first hashes the first `bytes`
  /// of that file: the part an earlier run left, which a resumed transfer
  /// continues.
  struct Prefix {
    std::filesystem::path file;
    std::uint64_t bytes = 0;
  };
  explicit StreamHasher(std::optional<Prefix> prefix = std::nullopt);
  ~StreamHasher();
  StreamHasher(const StreamHasher&) = delete;
  StreamHasher& operator=(const StreamHasher&) = delete;

  /// Queues a copy of `data`; waits while the thread is a few blocks behind.
  void feed(const char* data, std::size_t size);
  /// The digest of the prefix and everything fed. Throws IoError when the
  /// prefix could not be read (or was shorter than promised).
  hash::Sha256Digest finish();
  /// Bytes hashed or queued so far, the prefix included.
  [[nodiscard]] std::uint64_t bytes() const { return m_bytes; }

 private:
  void run(std::optional<Prefix> prefix);
  void hand_over(std::vector<char>&& block);

  static constexpr std::size_t k_block_size = 1024 * 1024;
  static constexpr std::size_t k_max_queued = 4;

  std::mutex m_mutex;
  std::condition_variable m_changed;
  std::deque<std::vector<char>> m_queue;   // full blocks waiting for the thread
  std::vector<std::vector<char>> m_spare;  // hashed blocks, reused
  std::vector<char> m_filling;             // the block feed() appends to
  bool m_closing = false;
  std::string m_prefix_error;  // set by the thread when the prefix read failed
  std::uint64_t m_bytes = 0;
  hash::Sha256 m_hasher;  // used by the thread only, until m_done
  std::thread m_thread;   // last: started after everything above exists
};

}  // namespace wheelmod::net
