#include "analyzer/source/source_file.h"

#include <algorithm>

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
// Counts code units of the line prefix before `column` bytes; invalid UTF-8 bytes count as one.
std::uint32_t countUnits(std::string_view prefix, bool utf16) {
  std::uint32_t units = 0;
  for (std::size_t i = 0; i < prefix.size();) {
    auto byte = static_cast<unsigned char>(prefix[i]);
    std::size_t length = byte < 0x80 ? 1 : (byte >> 5) == 0x6 ? 2 : (byte >> 4) == 0xE ? 3
                                         : (byte >> 3) == 0x1E ? 4 : 1;
    units += (utf16 && length == 4) ? 2 : 1;
    i += length;
  }
  return units;
}
}  // namespace

std::uint32_t SourceFile::utf16Column(SourcePoint point) const {
  auto text = line(point.line);
  return countUnits(text.substr(0, std::min<std::size_t>(point.column, text.size())), true);
}

std::uint32_t SourceFile::codePointColumn(SourcePoint point) const {
  auto text = line(point.line);
  return countUnits(text.substr(0, std::min<std::size_t>(point.column, text.size())), false);
}

}  // namespace graphsafe
