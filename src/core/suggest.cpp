#include "core/suggest.hpp"

#include <algorithm>
#include <cctype>

#include "core/strings.hpp"

namespace wheelmod {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  const auto same = [](char x, char y) { return ascii_lower(x) == ascii_lower(y); };
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] =
          std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same(a[i - 1], b[j - 1]) ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::optional<std::string> closest(std::string_view word, const std::vector<std::string>& names) {
  const std::size_t limit = std::clamp<std::size_t>(word.size() / 3, 1, 3);
  std::optional<std::string> best;
  std::size_t best_distance = limit + 1;
  for (const auto& name : names) {
    const auto distance = edit_distance(word, name);
    if (distance < best_distance) {
      best_distance = distance;
      best = name;
    }
  }
  return best;
}

}  // namespace wheelmod
