#include "analyzer/engine/source_reader.h"

#include <gtest/gtest.h>

#include "analyzer/source/utf8.h"
#include "tests/temp_tree.h"

namespace graphsafe {
namespace {

using ::graphsafe::testing::TempTree;

struct Read {
  SourceFilePtr file;
  std::vector<Notice> notices;
};

Read readFile(const TempTree& tree, const std::string& name, std::string_view content,
              std::size_t limit = 8u << 20) {
  tree.write(name, content);
  AnalysisSettings settings;
  settings.max_file_bytes = limit;
  Read read;
  read.file = readSource(tree.path(name), settings, read.notices);
  return read;
}

TEST(Utf8Test, FindsTheFirstInvalidByte) {
  constexpr auto kValid = std::string_view::npos;
  EXPECT_EQ(firstInvalidUtf8(""), kValid);
  EXPECT_EQ(firstInvalidUtf8("plain ascii, long enough to take the fast path"), kValid);
  EXPECT_EQ(firstInvalidUtf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), kValid);
  EXPECT_EQ(firstInvalidUtf8("abc\xff"), 3u);
  EXPECT_EQ(firstInvalidUtf8("0123456789abcdef\x80"), 16u);           // lone continuation
  EXPECT_EQ(firstInvalidUtf8("ab\xc3"), 2u);                          // truncated
  EXPECT_EQ(firstInvalidUtf8("\xc0\xaf"), 0u);                        // overlong '/'
  EXPECT_EQ(firstInvalidUtf8("\xe0\x80\xaf"), 0u);                    // overlong
  EXPECT_EQ(firstInvalidUtf8("x\xed\xa0\x80"), 1u);                   // surrogate U+D800
  EXPECT_EQ(firstInvalidUtf8("\xf4\x90\x80\x80"), 0u);                // past U+10FFFF
  EXPECT_EQ(firstInvalidUtf8("\xf0\x9f\x98"), 0u);                    // truncated 4-byte
  EXPECT_EQ(firstInvalidUtf8("\xe2\x82\x41"), 0u);                    // bad continuation
  EXPECT_EQ(firstInvalidUtf8("\xef\xbb\xbfimport torch\n"), kValid);  // BOM
}

TEST(SourceReaderTest, ReadsAFile) {
  TempTree tree;
  Read read = readFile(tree, "a.py", "import torch\nx = 1\n");
  ASSERT_TRUE(read.file);
  EXPECT_TRUE(read.notices.empty());
  EXPECT_EQ(read.file->path(), tree.path("a.py"));
  EXPECT_EQ(read.file->text(), "import torch\nx = 1\n");
}

TEST(SourceReaderTest, EmptyFileIsFine) {
  TempTree tree;
  Read read = readFile(tree, "empty.py", "");
  ASSERT_TRUE(read.file);
  EXPECT_TRUE(read.notices.empty());
  EXPECT_EQ(read.file->text(), "");
}

TEST(SourceReaderTest, ByteOrderMarkIsKept) {
  TempTree tree;
  Read read = readFile(tree, "bom.py", "\xef\xbb\xbfx = 1\n");
  ASSERT_TRUE(read.file);
  EXPECT_TRUE(read.notices.empty());
  EXPECT_EQ(read.file->text().size(), 9u);
}

TEST(SourceReaderTest, BinaryFileIsSkippedWithANotice) {
  TempTree tree;
  Read read = readFile(tree, "blob.py", std::string("x = 1\n\0\0\x01", 9));
  EXPECT_FALSE(read.file);
  ASSERT_EQ(read.notices.size(), 1u);
  EXPECT_EQ(read.notices[0].path, tree.path("blob.py"));
  EXPECT_EQ(read.notices[0].message, "skipped: binary file (contains NUL bytes)");
}

TEST(SourceReaderTest, InvalidUtf8NamesTheLineAndOffset) {
  TempTree tree;
  Read read = readFile(tree, "latin1.py", "# ok\n# ok\nname = 'caf\xe9'\n");
  EXPECT_FALSE(read.file);
  ASSERT_EQ(read.notices.size(), 1u);
  EXPECT_EQ(read.notices[0].message,
            "skipped: not valid UTF-8 (invalid byte 0xE9 on line 3, byte offset 21)");
}

TEST(SourceReaderTest, OversizedFileIsSkippedBeforeReading) {
  TempTree tree;
  Read read = readFile(tree, "big.py", std::string(3000, 'x'), 2048);
  EXPECT_FALSE(read.file);
  ASSERT_EQ(read.notices.size(), 1u);
  EXPECT_EQ(read.notices[0].message, "skipped: 2.9 KB is over the 2.0 KB limit (--max-file-size)");

  AnalysisSettings settings;
  EXPECT_EQ(checkSourceText(std::string(10u << 20, 'x'), settings),
            "skipped: 10.0 MB is over the 8.0 MB limit (--max-file-size)");
  settings.max_file_bytes = 100;
  EXPECT_EQ(checkSourceText(std::string(101, 'x'), settings),
            "skipped: 101 bytes is over the 100 bytes limit (--max-file-size)");
  EXPECT_EQ(checkSourceText(std::string(100, 'x'), settings), "");
}

TEST(SourceReaderTest, MissingFileAndDirectoryAreNotices) {
  TempTree tree;
  AnalysisSettings settings;
  std::vector<Notice> notices;
  EXPECT_FALSE(readSource(tree.path("gone.py"), settings, notices));
  tree.mkdir("dir.py");
  EXPECT_FALSE(readSource(tree.path("dir.py"), settings, notices));
  ASSERT_EQ(notices.size(), 2u);
  EXPECT_EQ(notices[0].message, "cannot read: No such file or directory");
  EXPECT_EQ(notices[1].message, "cannot read: Is a directory");
}

TEST(SourceReaderTest, CheckSourceTextAcceptsGoodText) {
  AnalysisSettings settings;
  EXPECT_EQ(checkSourceText("", settings), "");
  EXPECT_EQ(checkSourceText("x = '\xc3\xa9'\n", settings), "");
  EXPECT_NE(checkSourceText(std::string("a\0b", 3), settings), "");
}

}  // namespace
}  // namespace graphsafe
