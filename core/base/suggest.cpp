// Edit distance and the "did you mean" suggestion used in error messages.
#include "core/base/suggest.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

namespace dtsim {

int edit_distance(std::string_view a, std::string_view b) {
  std::vector<int> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    int diagonal = row[0];
    row[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      const int above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::optional<std::string> closest_match(std::string_view word, std::span<const std::string> candidates,
                                         int max_distance) {
  std::optional<std::string> best;
  int best_distance = max_distance + 1;
  for (const auto& c : candidates) {
    int d = edit_distance(word, c);
    // A word the candidate contains ("tree" in "double_binary_tree") is as good as one edit.
    if (word.size() >= 3 && c.find(word) != std::string::npos) d = std::min(d, 1);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, std::span<const std::string> candidates) {
  const auto match = closest_match(word, candidates, std::max(2, static_cast<int>(word.size()) / 3));
  return match ? " (did you mean '" + *match + "'?)" : std::string();
}

}  // namespace dtsim
