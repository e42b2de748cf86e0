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

// `text` (ASCII and Latin-1 only) in UTF-16 or UTF-32: `unit` bytes a character, `big` endian.
std::string wide(std::string_view text, std::size_t unit, bool big, bool bom) {
  std::string out;
  auto put = [&](std::uint32_t code) {
    for (std::size_t i = 0; i < unit; ++i) {
      std::size_t shift = 8 * (big ? unit - 1 - i : i);
      out += static_cast<char>((code >> shift) & 0xFF);
    }
  };
  if (bom) put(0xFEFF);
  for (char c : text) put(static_cast<unsigned char>(c));
  return out;
}

TEST(SourceReaderTest, Utf16AndUtf32AreNamedWithAndWithoutAByteOrderMark) {
  TempTree tree;
  const std::string text = "import torch\n# caf\xe9\nx = torch.ones(4)\n";
  struct Case {
    std::size_t unit;
    bool big;
    const char* name;
  };
  for (Case c : {Case{2, false, "UTF-16 (little-endian"}, Case{2, true, "UTF-16 (big-endian"},
                 Case{4, false, "UTF-32 (little-endian"}, Case{4, true, "UTF-32 (big-endian"}}) {
    for (bool bom : {false, true}) {
      SCOPED_TRACE(std::string(c.name) + (bom ? ", BOM" : ""));
      Read read = readFile(tree, "wide.py", wide(text, c.unit, c.big, bom));
      EXPECT_FALSE(read.file);
      ASSERT_EQ(read.notices.size(), 1u);
      const std::string& message = read.notices[0].message;
      EXPECT_TRUE(message.starts_with(std::string("skipped: ") + c.name)) << message;
      EXPECT_TRUE(message.ends_with(" file; graphsafe reads UTF-8")) << message;
      EXPECT_EQ(message.find("with a byte order mark") != std::string::npos, bom) << message;
    }
  }
  // A byte order mark alone, no NUL byte: still named, not "invalid byte 0xFF".
  EXPECT_EQ(readFile(tree, "mark.py", "\xff\xfe").notices.at(0).message,
            "skipped: UTF-16 (little-endian, with a byte order mark) file; graphsafe reads UTF-8");
  // One character without a mark.
  EXPECT_EQ(checkSourceText(std::string("x\0", 2), AnalysisSettings{}),
            "skipped: UTF-16 (little-endian) file; graphsafe reads UTF-8");
  // NUL bytes in no such pattern: binary.
  EXPECT_EQ(checkSourceText(std::string("\x7f" "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0", 18),
                            AnalysisSettings{}),
            "skipped: binary file (contains NUL bytes)");
}

}  // namespace
}  // namespace graphsafe
