#pragma once

// How deeply a Python file's blocks are nested, found lexically (strings, comments, brackets
// and line continuations skipped), before parsing. tree-sitter-python's external scanner keeps
// its stack of indentation levels in the parser's serialization buffer (1,024 bytes, two bytes a
// level): past kParserIndentLimit levels the deeper ones are dropped between tokens, and the
// parse fails where the file is not wrong ("syntax error at line 1"). A file nested deeper gets
// a notice that names the depth and the limit instead. (CPython itself stops at 100 levels:
// "too many levels of indentation".)

#include <cstddef>
#include <string_view>

namespace graphsafe::python {

// The deepest nesting tree-sitter-python parses correctly.
inline constexpr std::size_t kParserIndentLimit = 511;

// The largest number of indentation levels open at once (0 for a file without blocks). Tabs
// count 8 columns and a form feed resets the column, as in the parser's scanner.
std::size_t maxIndentDepth(std::string_view text);

// maxIndentDepth() when it is past kParserIndentLimit, else 0; linear, and cheap for the files
// that are not (no line is indented past the limit's width).
std::size_t indentDepthPastParserLimit(std::string_view text);

}  // namespace graphsafe::python
