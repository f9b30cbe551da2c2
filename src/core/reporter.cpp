#include "core/reporter.hpp"

#include <array>
#include <cstdio>

namespace wheelmod {

std::string format_bytes(std::uint64_t bytes) {
  static constexpr std::array<const char*, 5> k_units = {"B", "KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  auto value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < k_units.size()) {
    value /= 1024.0;
    ++unit;
  }
  std::array<char, 32> text{};
  std::snprintf(text.data(), text.size(), "%.1f %s", value, k_units[unit]);
  return text.data();
}

}  // namespace wheelmod
