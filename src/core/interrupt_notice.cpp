#include "core/interrupt_notice.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>

namespace wheelmod {

namespace {

// The handler may use only async-signal-safe calls (signal-safety(7)): the line is copied into
// static storage beforehand and written with write(2).
std::array<char, 4096> g_line{};
std::size_t g_length = 0;
struct sigaction g_previous_int {};
struct sigaction g_previous_term {};

extern "C" void on_signal(int signal) {
  if (g_length > 0) {
    const ssize_t written = ::write(STDERR_FILENO, g_line.data(), g_length);
    (void)written;  // nothing to do about a failed write to stderr here
  }
  // SA_RESETHAND has restored the default action: raised again, the signal ends the process
  // as it would have without this handler.
  ::raise(signal);
}

}  // namespace

InterruptNotice::InterruptNotice(std::string_view line) {
  const std::size_t length = std::min(line.size(), g_line.size() - 1);
  std::memcpy(g_line.data(), line.data(), length);
  g_line[length] = '\n';
  g_length = length + 1;
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = static_cast<int>(SA_RESETHAND);
  ::sigaction(SIGINT, &action, &g_previous_int);
  ::sigaction(SIGTERM, &action, &g_previous_term);
}

InterruptNotice::~InterruptNotice() {
  ::sigaction(SIGINT, &g_previous_int, nullptr);
  ::sigaction(SIGTERM, &g_previous_term, nullptr);
  g_length = 0;
}

}  // namespace wheelmod
