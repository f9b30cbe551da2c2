#include "stream_hasher.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <span>

#include "core/errors.hpp"
#include "core/unique_fd.hpp"

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
  {
    const std::lock_guard lock(m_mutex);
    m_closing = true;
  }
  m_changed.notify_all();
  if (m_thread.joinable()) m_thread.join();
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
    if (m_queue.empty()) break;  // closing, and everything is hashed
    std::vector<char> block = std::move(m_queue.front());
    m_queue.pop_front();
    lock.unlock();
    m_hasher.update(std::string_view(block.data(), block.size()));
    block.clear();
    lock.lock();
    m_spare.push_back(std::move(block));
    m_changed.notify_all();
  }
}

void StreamHasher::hand_over(std::vector<char>&& block) {
  std::unique_lock lock(m_mutex);
  // Backpressure: the transfer waits rather than queueing without bound.
  m_changed.wait(lock, [this] { return m_queue.size() < k_max_queued; });
  m_queue.push_back(std::move(block));
  if (!m_spare.empty()) {
    m_filling = std::move(m_spare.back());
    m_spare.pop_back();
  }
  lock.unlock();
  m_changed.notify_all();
}

void StreamHasher::feed(const char* data, std::size_t size) {
  m_bytes += size;
  while (size > 0) {
    if (m_filling.capacity() < k_block_size) m_filling.reserve(k_block_size);
    const std::size_t room = k_block_size - m_filling.size();
    const std::size_t take = std::min(room, size);
    m_filling.insert(m_filling.end(), data, data + take);
    data += take;
    size -= take;
    if (m_filling.size() == k_block_size) hand_over(std::exchange(m_filling, {}));
  }
}

hash::Sha256Digest StreamHasher::finish() {
  if (!m_filling.empty()) hand_over(std::exchange(m_filling, {}));
  {
    const std::lock_guard lock(m_mutex);
    m_closing = true;
  }
  m_changed.notify_all();
  m_thread.join();
  if (!m_prefix_error.empty())
    throw IoError(m_prefix_error, "cannot hash the part an earlier run downloaded",
                  "delete the .part file and run again");
  return m_hasher.finish();
}

}  // namespace wheelmod::net
