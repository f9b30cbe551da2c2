#include "stream_hasher.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <span>
#include <utility>

namespace wheelmod::net {

namespace {

// Hashes the first `bytes` of `file`; "" or what went wrong.
std::string hash_prefix(hash::Sha256& hasher, const StreamHasher::Prefix& prefix) {
  const UniqueFd fd(::open(prefix.file.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return std::string("cannot open: ") + std::strerror(errno);
  std::vector<std::uint8_t> block(64 * 1024);
  std::uint64_t left = prefix.bytes;
  while (left > 0) {
    const ssize_t n = ::read(fd.get(), block.data(), std::min<std::uint64_t>(left, block.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::string("cannot read: ") + std::strerror(errno);
    if (n == 0) return "the file ended " + std::to_string(left) + " bytes early";
    hasher.update(std::span(block.data(), static_cast<std::size_t>(n)));
    left -= static_cast<std::uint64_t>(n);
  }
  return {};
}

}  // namespace

StreamHasher::StreamHasher(std::optional<Prefix> prefix)
    : m_bytes(prefix ? prefix->bytes : 0),
      m_thread([this, prefix = std::move(prefix)] { run(prefix); }) {}

StreamHasher::~StreamHasher() {
  if (!m_thread.joinable()) return;  // finish() joined it
  {
    const std::lock_guard lock(m_mutex);
    m_closing = true;
    m_discard = true;
  }
  m_changed.notify_all();
  m_thread.join();
}

void StreamHasher::write_to(UniqueFd file, std::filesystem::path path) {
  const std::lock_guard lock(m_mutex);
  m_file = std::move(file);
  m_path = std::move(path);
}

void StreamHasher::run(std::optional<Prefix> prefix) {
  if (prefix) {
    auto error = hash_prefix(m_hasher, *prefix);
    if (!error.empty()) {
      const std::lock_guard lock(m_mutex);
      m_prefix_error = prefix->file.string() + ": " + error;
    }
  }
  std::unique_lock lock(m_mutex);
  for (;;) {
    m_changed.wait(lock, [this] { return !m_queue.empty() || m_closing; });
    if (m_queue.empty() || m_discard) break;  // closing: everything fed is written and hashed
    Block block = std::move(m_queue.front());
    m_queue.pop_front();
    const int fd = m_file.get();  // stays open: close_file() waits for this block
    lock.unlock();
    // After a failed write the file has a hole: hashing on would describe
    // bytes that are not there, so nothing more is written or hashed.
    if (!failed() && (fd < 0 || write_block(fd, block)))
      m_hasher.update(std::string_view(block.data.data(), block.data.size()));
    block.data.clear();
    lock.lock();
    m_spare.push_back(std::move(block.data));
    --m_in_hand;
    m_changed.notify_all();
  }
}

bool StreamHasher::write_block(int fd, const Block& block) {
  // pwrite at the block's own offset: the file position plays no part, so
  // a continued .part needs no lseek and a block can only land where its
  // bytes belong.
  for (std::size_t done = 0; done < block.data.size();) {
    const ssize_t n = ::pwrite(fd, block.data.data() + done, block.data.size() - done,
                               static_cast<off_t>(block.offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      const std::lock_guard lock(m_mutex);
      m_write_error =
          IoError(m_path.string(), std::string("cannot write: ") + std::strerror(error),
                  error == ENOSPC ? "free some space on that file system, or choose another --dest"
                                  : "check the destination directory");
      m_failed.store(true, std::memory_order_relaxed);
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

void StreamHasher::hand_over() {
  std::unique_lock lock(m_mutex);
  // Backpressure: the receiving thread waits rather than queueing without bound.
  m_changed.wait(lock, [this] { return m_queue.size() < k_max_queued; });
  m_queue.push_back(std::exchange(m_filling, Block{}));
  ++m_in_hand;
  if (!m_spare.empty()) {
    m_filling.data = std::move(m_spare.back());
    m_spare.pop_back();
  }
  lock.unlock();
  m_changed.notify_all();
}

void StreamHasher::feed(const char* data, std::size_t size) {
  while (size > 0) {
    if (m_filling.data.empty()) {
      m_filling.offset = m_bytes;
      m_filling.data.reserve(k_block_size);  // a spare block has the room already
    }
    const std::size_t take = std::min(k_block_size - m_filling.data.size(), size);
    m_filling.data.insert(m_filling.data.end(), data, data + take);
    data += take;
    size -= take;
    m_bytes += take;
    if (m_filling.data.size() == k_block_size) hand_over();
  }
  if (!m_filling.data.empty() && m_in_hand.load() == 0) hand_over();  // the thread is idle
}

std::optional<IoError> StreamHasher::close_file() {
  if (!m_filling.data.empty()) hand_over();
  std::unique_lock lock(m_mutex);
  m_changed.wait(lock, [this] { return m_in_hand == 0; });
  m_file.reset();
  return m_write_error;
}

hash::Sha256Digest StreamHasher::finish() {
  if (!m_filling.data.empty()) hand_over();
  {
    const std::lock_guard lock(m_mutex);
    m_closing = true;
  }
  m_changed.notify_all();
  m_thread.join();
  m_file.reset();
  if (!m_prefix_error.empty())
    throw IoError(m_prefix_error, "cannot hash the part an earlier run downloaded",
                  "delete the .part file and run again");
  if (m_write_error) throw *m_write_error;
  return m_hasher.finish();
}

}  // namespace wheelmod::net
