#include "analyzer/config/suggestion.h"

#include <algorithm>
#include <cctype>
#include <cstddef>

namespace graphsafe {

namespace {

// Longer inputs are never typos of a setting or rule name; the bound keeps the quadratic
// distance cheap on whatever a file holds.
constexpr std::size_t kMaxCompared = 64;

std::string folded(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    out.push_back(c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

std::size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + cost});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::optional<std::string> closestName(std::string_view given,
                                       const std::vector<std::string_view>& names,
                                       std::size_t max_distance) {
  if (given.empty() || given.size() > kMaxCompared) return std::nullopt;
  std::string key = folded(given);
  std::optional<std::string> best;
  if (max_distance == 0) max_distance = std::max<std::size_t>(2, given.size() / 3);
  std::size_t best_distance = max_distance + 1;
  for (std::string_view name : names) {
    if (name.size() > kMaxCompared) continue;
    std::string candidate = folded(name);
    if (candidate == key) return std::string(name);
    std::size_t distance = editDistance(key, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = std::string(name);
    }
  }
  return best;
}

}  // namespace graphsafe
