#pragma once

// A literal's identity, independent of how the source spells it, so that a test in a callee
// (`backend == "cuda"`) can be compared with the argument a caller passes (`backend='cuda'`):
//   None, True, False; "i:<decimal>" for integers; "s:<characters>" for plain strings.
// Other literals (floats, bytes, f-strings, strings with escapes) have no key: a comparison with
// them is left undecided.

#include <optional>
#include <string>
#include <string_view>

namespace graphsafe {

std::optional<std::string> literalKey(std::string_view source_text);

// The key of a string's characters ("cuda" -> "s:cuda").
std::string stringKey(std::string_view characters);

// Python truthiness of a keyed literal: None, False, 0 and "" are false.
bool literalTruthy(std::string_view key);

// Does comparing the keys tell whether the literals are equal? Not for an integer against a
// boolean (1 == True in Python); always for the same key.
bool keysComparable(std::string_view a, std::string_view b);

}  // namespace graphsafe
