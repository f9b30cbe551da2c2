// Running one piece of work on several threads at once, written once for every pool of the
// project (downloads' lanes, unpacking, RECORD hashing).
#pragma once

#include <cstddef>
#include <functional>

namespace wheelmod {

/// Runs `work(0)` on this thread and `work(1)` ... `work(threads - 1)` on threads of their own,
/// returning when every one has returned; returns how many ran (at least 1). A thread the
/// system refuses to start (std::system_error: a process or cgroup at its thread limit) is
/// passed over: `work` must take its share from a common queue, so that the others, and this
/// thread, do what that one would have. Exceptions are `work`'s to keep: one that escapes it
/// ends the process (std::terminate), as from any thread.
std::size_t run_in_parallel(std::size_t threads, const std::function<void(std::size_t)>& work);

}  // namespace wheelmod
