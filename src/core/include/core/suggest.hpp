// "Did you mean ...?": the nearest of the names a user could have meant, for error hints.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wheelmod {

/// Levenshtein distance (insertions, deletions, substitutions; ASCII case-insensitive).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate nearest to `word`, when it is within a third of the word's length (at least
/// one edit, at most three), as git and CLI tools suggest; ties: the first listed.
std::optional<std::string> closest(std::string_view word, const std::vector<std::string>& names);

}  // namespace wheelmod
