#pragma once

// The first bracket that does not balance in Python source, found lexically (strings and
// comments skipped), for the syntax-error notice: tree-sitter reports an unclosed bracket where
// its error recovery gave up, often line 1 of the file, while the fix is where the bracket was
// opened. CPython reports the same two cases: "'[' was never closed" and "unmatched ')'".

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace graphsafe::python {

struct BracketProblem {
  std::int32_t line = 0;  // 0-based
  std::string message;    // "'[' was never closed", "unmatched ')'", "')' does not match '['"
};

std::optional<BracketProblem> firstBracketProblem(std::string_view text);

}  // namespace graphsafe::python
