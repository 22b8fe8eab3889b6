// "Did you mean ...?" for misspelt names: the closest candidate by edit distance.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace dtsim {

// Levenshtein distance: insertions, deletions and substitutions each cost 1.
int edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` if it is at most `max_distance` edits away (the first of equals wins).
std::optional<std::string> closest_match(std::string_view word, std::span<const std::string> candidates,
                                         int max_distance = 2);

// " (did you mean 'x'?)" when a close candidate exists, else "".
std::string did_you_mean(std::string_view word, std::span<const std::string> candidates);

}  // namespace dtsim
