#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace graphsafe {

// A point in a source file: 0-based line and 0-based byte column (tree-sitter's convention).
// Output formats convert to their own conventions (1-based, UTF-16 code units, ...).
struct SourcePoint {
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  friend bool operator==(const SourcePoint&, const SourcePoint&) = default;
  friend auto operator<=>(const SourcePoint&, const SourcePoint&) = default;
};

// A half-open byte range [begin, end) with its start and end points.
struct SourceRange {
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  SourcePoint start;
  SourcePoint stop;
  friend bool operator==(const SourceRange&, const SourceRange&) = default;
};

// One analyzed file: its path as the user named it and its bytes, with a line table.
// Immutable once built, shared by the model, the diagnostics and the outputs.
class SourceFile {
 public:
  SourceFile(std::string path, std::string text);

  const std::string& path() const { return path_; }
  const std::string& text() const { return text_; }
  std::size_t lineCount() const { return line_starts_.size(); }

  // The text of a 0-based line without its line terminator; empty when out of range.
  std::string_view line(std::uint32_t index) const;
  // The point of a byte offset (clamped to the end of the file).
  SourcePoint pointAt(std::uint32_t offset) const;
  // The byte offset of a point (clamped to the line's end and the file's end).
  std::uint32_t offsetAt(SourcePoint point) const;
  SourceRange rangeOf(std::uint32_t begin, std::uint32_t end) const;

  // Column of `point` counted in UTF-16 code units, as LSP and SARIF (default) count.
  std::uint32_t utf16Column(SourcePoint point) const;
  // Column of `point` counted in Unicode code points.
  std::uint32_t codePointColumn(SourcePoint point) const;

 private:
  // Where counting may resume on a long line: a byte offset where a UTF-8 sequence starts, and
  // the units before it on its line. Every kColumnBlock bytes of lines longer than that, so
  // that a column costs at most a block's scan, however long the line (a minified file with
  // thousands of findings on its one line).
  struct ColumnCheckpoint {
    std::uint32_t offset = 0;
    std::uint32_t code_points = 0;
    std::uint32_t utf16 = 0;
  };
  static constexpr std::uint32_t kColumnBlock = 256;
  std::uint32_t column(SourcePoint point, bool utf16) const;
  void buildColumnCheckpoints() const;

  std::string path_;
  std::string text_;
  std::vector<std::uint32_t> line_starts_;
  mutable std::once_flag checkpoints_once_;
  mutable std::vector<ColumnCheckpoint> checkpoints_;  // by offset
};

using SourceFilePtr = std::shared_ptr<const SourceFile>;

}  // namespace graphsafe
