// Times as wheelmod writes them in logs and locks: ISO 8601 in UTC, to the second.
#pragma once

#include <ctime>
#include <string>

namespace wheelmod {

/// "2026-12-03T17:55:00Z".
std::string utc_text(std::time_t when);
std::string utc_now();

}  // namespace wheelmod
