// Private to src/swap: the major a runtime library's SONAME carries (libcudart.so.12 -> 12,
// libamdhip64.so.6 -> 6), which decides whether an extension built against it can share a
// process with a torch built against another.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>

namespace wheelmod::swap::detail {

/// The number after `stem` ("libamdhip64.so.") up to the next dot; nullopt for another name, the
/// link name without a number (libamdhip64.so) or anything that is not 1-3 digits.
inline std::optional<int> soname_major(std::string_view name, std::string_view stem) {
  if (!name.starts_with(stem)) return std::nullopt;
  const auto rest = name.substr(stem.size());
  const auto digits = rest.substr(0, rest.find('.'));
  if (digits.empty() || digits.size() > 3 ||
      !std::ranges::all_of(digits, [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::stoi(std::string(digits));
}

}  // namespace wheelmod::swap::detail
