// One line for the user when an interrupt (SIGINT, Ctrl-C) or a SIGTERM ends a long step: what was
// kept for the next run. The process still ends as the signal ends it (exit status 128 + N in a
// shell), so scripts and batch systems see the interruption.
#pragma once

#include <string_view>

namespace wheelmod {

class InterruptNotice {
 public:
  /// While this lives, SIGINT and SIGTERM write `line` (one line; a newline is added, and it is cut
  /// at 4 KiB) to stderr and then take their default action. One at a time.
  explicit InterruptNotice(std::string_view line);
  ~InterruptNotice();
  InterruptNotice(const InterruptNotice&) = delete;
  InterruptNotice& operator=(const InterruptNotice&) = delete;
};

}  // namespace wheelmod
