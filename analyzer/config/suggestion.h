#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace graphsafe {

// The name a misspelled `given` most likely meant, for "did you mean ...?": the same name
// spelled with other case or `_` for `-`, or else the closest by edit distance when that
// distance is small for the name's length (or at most `max_distance` when it is not 0).
// nullopt when nothing is close.
std::optional<std::string> closestName(std::string_view given,
                                       const std::vector<std::string_view>& names,
                                       std::size_t max_distance = 0);

}  // namespace graphsafe
