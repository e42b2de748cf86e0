#include "frontends/python/bracket_balance.h"

#include <vector>

namespace graphsafe::python {

namespace {

struct Open {
  char bracket;
  std::int32_t line;
};

char closerOf(char open) {
  return open == '(' ? ')' : open == '[' ? ']' : '}';
}

std::string quoted(char c) {
  return std::string("'") + c + "'";
}

}  // namespace

std::optional<BracketProblem> firstBracketProblem(std::string_view text) {
  std::vector<Open> open;
  std::int32_t line = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '\\') {
      i += 2;  // a line continuation, or a stray backslash
      if (i <= text.size() && text[i - 1] == '\n') ++line;
    } else if (c == '"' || c == '\'') {
      const bool triple = text.substr(i, 3) == std::string(3, c);
      const std::size_t width = triple ? 3 : 1;
      i += width;
      while (i < text.size()) {
        if (text[i] == '\\') {
          // Even in a raw string (r"\"") a backslash keeps the next quote from ending it.
          if (i + 1 < text.size() && text[i + 1] == '\n') ++line;
          i += 2;
          continue;
        }
        if (text[i] == '\n') {
          if (!triple) break;  // an unterminated string ends at its line (counted outside)
          ++line;
        }
        if (text[i] == c && (!triple || text.substr(i, 3) == std::string(3, c))) {
          i += width;
          break;
        }
        ++i;
      }
    } else if (c == '(' || c == '[' || c == '{') {
      open.push_back({c, line});
      ++i;
    } else if (c == ')' || c == ']' || c == '}') {
      if (open.empty()) return BracketProblem{line, "unmatched " + quoted(c)};
      if (closerOf(open.back().bracket) != c) {
        return BracketProblem{line, quoted(c) + " does not match " + quoted(open.back().bracket) +
                                        " on line " + std::to_string(open.back().line + 1)};
      }
      open.pop_back();
      ++i;
    } else {
      ++i;
    }
  }
  // The outermost: everything after it is inside it, so that is where the code went wrong.
  if (!open.empty()) {
    return BracketProblem{open.front().line, quoted(open.front().bracket) + " was never closed"};
  }
  return std::nullopt;
}

}  // namespace graphsafe::python
