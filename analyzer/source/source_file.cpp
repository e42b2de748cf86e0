#include "analyzer/source/source_file.h"

#include <algorithm>
#include <iterator>

namespace graphsafe {

SourceFile::SourceFile(std::string path, std::string text)
    : path_(std::move(path)), text_(std::move(text)) {
  line_starts_.push_back(0);
  // "\n", "\r\n" and a lone "\r" all end a line, as Python's tokenizer treats them.
  for (std::uint32_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') {
      line_starts_.push_back(i + 1);
    } else if (text_[i] == '\r' && (i + 1 >= text_.size() || text_[i + 1] != '\n')) {
      line_starts_.push_back(i + 1);
    }
  }
}

std::string_view SourceFile::line(std::uint32_t index) const {
  if (index >= line_starts_.size()) return {};
  std::uint32_t begin = line_starts_[index];
  std::uint32_t end = index + 1 < line_starts_.size() ? line_starts_[index + 1]
                                                      : static_cast<std::uint32_t>(text_.size());
  while (end > begin && (text_[end - 1] == '\n' || text_[end - 1] == '\r')) --end;
  return std::string_view(text_).substr(begin, end - begin);
}

SourcePoint SourceFile::pointAt(std::uint32_t offset) const {
  offset = std::min<std::uint32_t>(offset, static_cast<std::uint32_t>(text_.size()));
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  auto line = static_cast<std::uint32_t>(std::distance(line_starts_.begin(), it) - 1);
  return {line, offset - line_starts_[line]};
}

std::uint32_t SourceFile::offsetAt(SourcePoint point) const {
  if (point.line >= line_starts_.size()) return static_cast<std::uint32_t>(text_.size());
  auto line_text = line(point.line);
  return line_starts_[point.line] +
         std::min<std::uint32_t>(point.column, static_cast<std::uint32_t>(line_text.size()));
}

SourceRange SourceFile::rangeOf(std::uint32_t begin, std::uint32_t end) const {
  return {begin, end, pointAt(begin), pointAt(end)};
}

namespace {
// The length of the UTF-8 sequence a lead byte starts; an invalid byte counts as one.
std::size_t sequenceLength(unsigned char byte) {
  return byte < 0x80           ? 1
         : (byte >> 5) == 0x6  ? 2
         : (byte >> 4) == 0xE  ? 3
         : (byte >> 3) == 0x1E ? 4
                               : 1;
}

// Counts code units of the line prefix before `column` bytes; invalid UTF-8 bytes count as one.
std::uint32_t countUnits(std::string_view prefix, bool utf16) {
  std::uint32_t units = 0;
  for (std::size_t i = 0; i < prefix.size();) {
    std::size_t length = sequenceLength(static_cast<unsigned char>(prefix[i]));
    units += (utf16 && length == 4) ? 2 : 1;
    i += length;
  }
  return units;
}
}  // namespace

void SourceFile::buildColumnCheckpoints() const {
  for (std::uint32_t index = 0; index < line_starts_.size(); ++index) {
    std::string_view text = line(index);
    if (text.size() <= kColumnBlock) continue;
    const std::uint32_t start = line_starts_[index];
    std::uint32_t code_points = 0;
    std::uint32_t utf16 = 0;
    std::uint32_t next = kColumnBlock;
    for (std::size_t i = 0; i < text.size();) {
      if (i >= next) {
        checkpoints_.push_back({start + static_cast<std::uint32_t>(i), code_points, utf16});
        next = static_cast<std::uint32_t>(i) + kColumnBlock;
      }
      std::size_t length = sequenceLength(static_cast<unsigned char>(text[i]));
      code_points += 1;
      utf16 += length == 4 ? 2 : 1;
      i += length;
    }
  }
}

std::uint32_t SourceFile::column(SourcePoint point, bool utf16) const {
  std::string_view text = line(point.line);
  const std::size_t end = std::min<std::size_t>(point.column, text.size());
  if (end <= kColumnBlock) return countUnits(text.substr(0, end), utf16);
  std::call_once(checkpoints_once_, [this] { buildColumnCheckpoints(); });
  const std::uint32_t start = line_starts_[point.line];
  const auto target = static_cast<std::uint32_t>(start + end);
  auto after = std::upper_bound(
      checkpoints_.begin(), checkpoints_.end(), target,
      [](std::uint32_t offset, const ColumnCheckpoint& c) { return offset < c.offset; });
  if (after == checkpoints_.begin() || std::prev(after)->offset < start) {
    return countUnits(text.substr(0, end), utf16);
  }
  const ColumnCheckpoint& from = *std::prev(after);
  const std::size_t skip = from.offset - start;
  return (utf16 ? from.utf16 : from.code_points) + countUnits(text.substr(skip, end - skip), utf16);
}

std::uint32_t SourceFile::utf16Column(SourcePoint point) const {
  return column(point, true);
}

std::uint32_t SourceFile::codePointColumn(SourcePoint point) const {
  return column(point, false);
}

}  // namespace graphsafe
