#pragma once

// Pieces every output format shares: 1-based positions, ranges as JSON, paths relative to the
// working directory, counts and the summary line.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "analyzer/engine/engine.h"

namespace graphsafe {

// How columns are counted: code points (text, JSON, GitHub) or UTF-16 code units (SARIF, LSP).
enum class ColumnUnit { kCodePoints, kUtf16 };

struct Position {
  std::uint32_t line = 1;    // 1-based
  std::uint32_t column = 1;  // 1-based, in the chosen unit
};

Position oneBasedPosition(const SourceFile* file, SourcePoint point, ColumnUnit unit);

// {"start": {"line", "column"}, "end": {"line", "column"}}, 1-based; the end is exclusive.
nlohmann::json rangeToJson(const SourceFile* file, const SourceRange& range, ColumnUnit unit);

// The current directory, absolute, with forward slashes; empty if it cannot be determined.
std::string currentDirectory();

// `path` relative to `directory` with forward slashes when it lies inside it, else empty.
// A relative `path` is taken relative to `directory` already.
std::string pathInside(const std::string& path, const std::string& directory);

// `path` made absolute against `directory`, normalized, with forward slashes.
std::string absolutePathFrom(const std::string& path, const std::string& directory);

// The JSON format's object for one finding and one notice (json_output.cpp); the json-lines
// format writes the same objects.
nlohmann::json diagnosticToJson(const Diagnostic& diagnostic);
nlohmann::json noticeToJson(const Notice& notice);
nlohmann::json regionToJson(const RegionSummary& region);

// What a run left unanalyzed: the notices saying so (Notice::incomplete), the files among them
// or skipped for want of a frontend, and whether that makes the run incomplete.
struct Incompleteness {
  std::size_t notices = 0;  // incomplete notices
  std::size_t files = 0;    // distinct files they name, with RunResult::skipped_files
  std::size_t unnamed = 0;  // incomplete notices about the run, not one file
};
Incompleteness incompleteness(const RunResult& result);

struct FindingCounts {
  std::size_t errors = 0;
  std::size_t warnings = 0;
  std::size_t files_with_findings = 0;
};
FindingCounts countFindings(const RunResult& result);

// "Found 3 errors and 1 warning in 2 files." or, for a clean run,
// "No CUDA-graph hazards found in 12 files."; the number suppressed is added when not zero, the
// files not analyzed ("; 2 C++ files not analyzed: a.cu, k.cuh") when there are any, and what
// the analysis could not finish ("; 1 file not analyzed completely (see the notices)").
std::string summaryLine(const RunResult& result);

// `text` (a file name) as a terminal should show it: control characters (a newline, an ANSI
// escape, C1 controls) and bytes that are not UTF-8 written as escapes (`\n`, `\x1b`, `\xe9`),
// a backslash as `\\`, so that a name cannot split a diagnostic's line or command the terminal.
// Plain names come back unchanged.
std::string printableName(std::string_view text);

// A file name as the text outputs start a line with it: printableName(), and in single quotes
// (a quote inside as '\'') when it holds anything but letters, digits and `_-./+@%,=:~`, as
// GNU tools quote names, so that a name like `a;touch X #.py` makes no line of a report a shell
// command.
std::string quotedName(std::string_view path);

// Source text (a message, a note, a line of code) as a terminal should show it: the escapes of
// printableName() for control characters and bytes that are not UTF-8, but tabs and
// backslashes kept. An escape sequence in the analyzed code (a clipboard write, a title change)
// is printed, never sent.
std::string printableText(std::string_view text);

// `text` cut to at most `max_bytes` (on a UTF-8 boundary) with "..." after the cut: a message
// that quotes a huge expression costs a line, not the expression.
std::string_view boundedText(std::string_view text, std::size_t max_bytes, bool& cut);

// "1 file", "2 files".
std::string plural(std::size_t count, const char* singular, const char* plural_form);

}  // namespace graphsafe
