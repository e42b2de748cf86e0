#include "frontends/python/indent_depth.h"

#include <cstdint>
#include <vector>

namespace graphsafe::python {

namespace {

// Whether any line starts with more than `limit` bytes of indentation: nesting deeper than
// `limit` levels needs one (every level is at least one column deeper than the last).
bool anyIndentLongerThan(std::string_view text, std::size_t limit) {
  std::size_t run = 0;
  bool at_start = true;
  for (char c : text) {
    if (c == '\n' || c == '\r') {
      run = 0;
      at_start = true;
    } else if (at_start && (c == ' ' || c == '\t' || c == '\f')) {
      if (++run > limit) return true;
    } else {
      at_start = false;
    }
  }
  return false;
}

}  // namespace

std::size_t maxIndentDepth(std::string_view text) {
  std::vector<std::uint32_t> levels;  // open indentation columns, above column 0
  std::size_t deepest = 0;
  int brackets = 0;
  bool line_start = true;  // at the start of a logical line
  std::size_t i = 0;
  while (i < text.size()) {
    if (line_start) {
      line_start = false;
      std::uint32_t column = 0;
      while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\f')) {
        column = text[i] == ' ' ? column + 1 : text[i] == '\t' ? column + 8 : 0;
        ++i;
      }
      if (i >= text.size()) break;
      const char first = text[i];
      if (first == '\n' || first == '\r' || first == '#') {
        // A blank or comment-only line opens and closes nothing.
        while (i < text.size() && text[i] != '\n') ++i;
        ++i;
        line_start = true;
        continue;
      }
      while (!levels.empty() && column < levels.back()) levels.pop_back();
      if (column > (levels.empty() ? 0u : levels.back())) levels.push_back(column);
      if (levels.size() > deepest) deepest = levels.size();
    }
    const char c = text[i];
    const bool lone_cr = c == '\r' && (i + 1 == text.size() || text[i + 1] != '\n');
    if (c == '\n' || lone_cr) {  // a lone CR ends a line too (old Mac files)
      ++i;
      line_start = brackets == 0;
    } else if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '\\') {
      i += 2;  // a line continuation (the next line continues this one), or an escape
    } else if (c == '"' || c == '\'') {
      const std::string_view quote = c == '"' ? "\"\"\"" : "'''";
      const bool triple = text.substr(i, 3) == quote;
      const std::size_t width = triple ? 3 : 1;
      i += width;
      while (i < text.size()) {
        if (text[i] == '\\') {
          i += 2;
          continue;
        }
        if (text[i] == '\n' && !triple) break;  // unterminated: ends at its line
        if (text[i] == c && (!triple || text.substr(i, 3) == quote)) {
          i += width;
          break;
        }
        ++i;
      }
    } else if (c == '(' || c == '[' || c == '{') {
      ++brackets;
      ++i;
    } else if (c == ')' || c == ']' || c == '}') {
      if (brackets > 0) --brackets;
      ++i;
    } else {
      ++i;
    }
  }
  return deepest;
}

std::size_t indentDepthPastParserLimit(std::string_view text) {
  // Most files: no line is indented past the limit's width, so nothing is nested past it.
  if (!anyIndentLongerThan(text, kParserIndentLimit)) return 0;
  std::size_t depth = maxIndentDepth(text);
  return depth > kParserIndentLimit ? depth : 0;
}

}  // namespace graphsafe::python
