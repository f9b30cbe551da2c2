#include "core/utc.hpp"

namespace wheelmod {

std::string utc_text(std::time_t when) {
  std::tm utc{};
  ::gmtime_r(&when, &utc);
  char text[32] = {};
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string utc_now() { return utc_text(std::time(nullptr)); }

}  // namespace wheelmod
