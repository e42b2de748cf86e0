// Columns in code points and UTF-16 units come from checkpoints on long lines (a finding on a
// 1 MB line costs a block's scan, not the line's): they must be exactly the columns a count
// from the line's start gives, for any text, invalid UTF-8 included.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "analyzer/source/source_file.h"

namespace graphsafe {
namespace {

// The count from the start of the line, as the columns were always defined.
std::uint32_t countedColumn(const SourceFile& file, SourcePoint point, bool utf16) {
  std::string_view line = file.line(point.line);
  line = line.substr(0, std::min<std::size_t>(point.column, line.size()));
  std::uint32_t units = 0;
  for (std::size_t i = 0; i < line.size();) {
    const auto byte = static_cast<unsigned char>(line[i]);
    const std::size_t length = byte < 0x80           ? 1
                               : (byte >> 5) == 0x6  ? 2
                               : (byte >> 4) == 0xE  ? 3
                               : (byte >> 3) == 0x1E ? 4
                                                     : 1;
    units += utf16 && length == 4 ? 2 : 1;
    i += length;
  }
  return units;
}

TEST(SourceColumnsTest, CheckpointedColumnsAreTheCountedOnes) {
  std::mt19937 random(7);
  const std::string pieces[] = {"a",    "\t",       "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
                                "\xff", "\xe2\x82", "\x80",     "\n",           "\r\n"};
  for (int round = 0; round < 20; ++round) {
    std::string text;
    const int length = round < 10 ? 3'000 : 200;
    for (int i = 0; i < length; ++i) {
      // Long lines mostly: newlines rare.
      std::size_t pick = random() % (sizeof pieces / sizeof pieces[0]);
      if (pick >= 8 && random() % 50 != 0) pick = 0;
      text += pieces[pick];
    }
    SourceFile file("t.py", text);
    for (std::uint32_t offset = 0; offset <= text.size(); offset += 1 + random() % 7) {
      SourcePoint point = file.pointAt(offset);
      ASSERT_EQ(file.codePointColumn(point), countedColumn(file, point, false)) << offset;
      ASSERT_EQ(file.utf16Column(point), countedColumn(file, point, true)) << offset;
    }
    // Past the line's end and on a line that does not exist.
    SourcePoint far{file.pointAt(0).line, 1u << 30};
    EXPECT_EQ(file.codePointColumn(far), countedColumn(file, far, false));
    EXPECT_EQ(file.utf16Column({1u << 30, 5}), 0u);
  }
}

}  // namespace
}  // namespace graphsafe
