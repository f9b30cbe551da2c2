// Private to wheelmod_net: where a download's bytes go once libcurl hands
// them over. The thread that runs a multi loop receives the streams of
// all its transfers; when it also wrote each chunk to disk, it alone
// bounded what `--jobs 4` reached (0.6x of 4 curl processes on loopback).
// So it only copies the chunk into a block (memcpy is ~10x faster than
// write(2) or SHA-256), and a thread per transfer writes each block to
// the `.part` at its offset, then hashes it: receiving, writing and
// hashing overlap across transfers. A block goes to the thread when
// it is full, or at once when the thread has nothing to do: on a slow
// link the `.part` grows as the bytes come (an interrupted run keeps
// them), on a fast one blocks fill while the thread is busy. Memory is
// bounded by a few blocks per transfer, whatever the file size; a full
// queue makes the receiving thread wait.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/errors.hpp"
#include "core/unique_fd.hpp"
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
  /// Drops what is still queued (nothing is written after this) and joins.
  ~StreamHasher();
  StreamHasher(const StreamHasher&) = delete;
  StreamHasher& operator=(const StreamHasher&) = delete;

  /// From now on every block is written to `file` (`path` in errors) at its
  /// offset in the download — bytes() when it was fed — before it is hashed.
  void write_to(UniqueFd file, std::filesystem::path path);
  /// Queues a copy of `data`; waits while the thread is a few blocks behind.
  void feed(const char* data, std::size_t size);
  /// Waits until everything fed is written and hashed, then closes the file:
  /// the first write error, if there was one.
  std::optional<IoError> close_file();
  /// True once a write failed: later blocks are neither written nor hashed.
  [[nodiscard]] bool failed() const { return m_failed.load(std::memory_order_relaxed); }
  /// The digest of the prefix and everything fed. Throws IoError when the
  /// prefix could not be read (or was shorter than promised) or a write failed.
  hash::Sha256Digest finish();
  /// Bytes hashed or queued so far, the prefix included.
  [[nodiscard]] std::uint64_t bytes() const { return m_bytes; }

 private:
  struct Block {
    std::vector<char> data;
    std::uint64_t offset = 0;  // where data[0] goes in the file
  };
  void run(std::optional<Prefix> prefix);
  void hand_over();
  bool write_block(int fd, const Block& block);

  static constexpr std::size_t k_block_size = 1024 * 1024;
  static constexpr std::size_t k_max_queued = 4;

  std::mutex m_mutex;
  std::condition_variable m_changed;
  std::deque<Block> m_queue;               // blocks waiting for the thread
  std::vector<std::vector<char>> m_spare;  // written and hashed blocks, reused
  std::atomic<std::size_t> m_in_hand = 0;  // blocks queued or being processed (set under m_mutex)
  bool m_closing = false;
  bool m_discard = false;  // closing without writing what is queued
  UniqueFd m_file;         // where blocks are written; -1: hashed only
  std::filesystem::path m_path;
  std::optional<IoError> m_write_error;
  std::atomic<bool> m_failed = false;
  std::string m_prefix_error;  // set by the thread when the prefix read failed

  // The feeding thread's own.
  Block m_filling;  // the block feed() appends to
  std::uint64_t m_bytes = 0;

  hash::Sha256 m_hasher;  // used by the thread only, until it is joined
  std::thread m_thread;   // last: started after everything above exists
};

}  // namespace wheelmod::net
