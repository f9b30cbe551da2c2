#include "core/parallel.hpp"

#include <system_error>
#include <thread>
#include <vector>

namespace wheelmod {

std::size_t run_in_parallel(std::size_t threads, const std::function<void(std::size_t)>& work) {
  std::vector<std::jthread> pool;
  if (threads > 1) pool.reserve(threads - 1);
  try {
    for (std::size_t i = 1; i < threads; ++i) pool.emplace_back(work, i);
  } catch (const std::system_error&) {
    // No more threads to be had: those that started, and this one, share the work.
  }
  work(0);
  return pool.size() + 1;  // the jthreads join as the pool goes
}

}  // namespace wheelmod
