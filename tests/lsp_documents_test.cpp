// The LSP server's pieces without a process: position encodings, URIs, incremental changes,
// the suppression quick fix's edit.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "analyzer/lsp/code_actions.h"
#include "analyzer/lsp/document_store.h"
#include "analyzer/lsp/file_uri.h"
#include "analyzer/lsp/json_rpc.h"
#include "analyzer/lsp/message_transport.h"
#include "analyzer/lsp/position_encoding.h"

namespace graphsafe::lsp {
namespace {

using nlohmann::json;

// "a" + é (2 bytes) + 😀 (4 bytes, a surrogate pair in UTF-16) + "b"
constexpr std::string_view kLine =
    "a\xc3\xa9\xf0\x9f\x98\x80"
    "b";

TEST(PositionEncodingTest, ConvertsBothWays) {
  EXPECT_EQ(byteColumn(kLine, 2, PositionEncoding::kUtf16), 3u);  // before the emoji
  EXPECT_EQ(byteColumn(kLine, 3, PositionEncoding::kUtf16), 3u);  // inside the pair
  EXPECT_EQ(byteColumn(kLine, 4, PositionEncoding::kUtf16), 7u);  // "b"
  EXPECT_EQ(byteColumn(kLine, 3, PositionEncoding::kUtf32), 7u);
  EXPECT_EQ(byteColumn(kLine, 7, PositionEncoding::kUtf8), 7u);
  EXPECT_EQ(byteColumn(kLine, 99, PositionEncoding::kUtf16), kLine.size());  // clamped
  EXPECT_EQ(unitColumn(kLine, 7, PositionEncoding::kUtf16), 4u);
  EXPECT_EQ(unitColumn(kLine, 7, PositionEncoding::kUtf32), 3u);
  EXPECT_EQ(unitColumn(kLine, 7, PositionEncoding::kUtf8), 7u);
  EXPECT_EQ(lineLengthInUnits(kLine, PositionEncoding::kUtf16), 5u);
  // A byte that is not UTF-8 counts as one unit.
  EXPECT_EQ(unitColumn("\xff"
                       "x",
                       2, PositionEncoding::kUtf16),
            2u);
}

TEST(PositionEncodingTest, Utf8OffsetInsideACharacterIsItsStart) {
  EXPECT_EQ(byteColumn(kLine, 1, PositionEncoding::kUtf8), 1u);  // before é
  EXPECT_EQ(byteColumn(kLine, 2, PositionEncoding::kUtf8), 1u);  // inside é
  EXPECT_EQ(byteColumn(kLine, 3, PositionEncoding::kUtf8), 3u);  // before the emoji
  EXPECT_EQ(byteColumn(kLine, 4, PositionEncoding::kUtf8), 3u);
  EXPECT_EQ(byteColumn(kLine, 5, PositionEncoding::kUtf8), 3u);
  EXPECT_EQ(byteColumn(kLine, 6, PositionEncoding::kUtf8), 3u);
  EXPECT_EQ(byteColumn(kLine, 8, PositionEncoding::kUtf8), 8u);
  // Bytes that are not a well-formed sequence are units of their own.
  EXPECT_EQ(byteColumn("a\x80\x80", 2, PositionEncoding::kUtf8), 2u);
  EXPECT_EQ(byteColumn("\xc3", 1, PositionEncoding::kUtf8), 1u);
}

TEST(PositionEncodingTest, PrefersUtf8ElseUtf16) {
  EXPECT_EQ(negotiatePositionEncoding({"utf-32", "utf-8"}), PositionEncoding::kUtf8);
  EXPECT_EQ(negotiatePositionEncoding({"utf-32"}), PositionEncoding::kUtf16);
  EXPECT_EQ(negotiatePositionEncoding({}), PositionEncoding::kUtf16);
}

TEST(FileUriTest, RoundTrips) {
  EXPECT_EQ(pathFromUri("file:///home/a/b%20c.py"), "/home/a/b c.py");
  EXPECT_EQ(pathFromUri("file://localhost/x.py"), "/x.py");
  EXPECT_EQ(pathFromUri("FILE:///x.py"), "/x.py");
  EXPECT_FALSE(pathFromUri("untitled:Untitled-1"));
  EXPECT_FALSE(pathFromUri("file:///bad%zz"));
  EXPECT_FALSE(pathFromUri("file:///nul%00"));
  EXPECT_EQ(uriFromPath("/home/a/b c.py"), "file:///home/a/b%20c.py");
  EXPECT_EQ(pathFromUri(uriFromPath("/t/\xc3\xa9 #1.py")), "/t/\xc3\xa9 #1.py");
}

TEST(DocumentStoreTest, AppliesIncrementalChangesInOrder) {
  DocumentStore store;
  ASSERT_TRUE(store.open("file:///t/a.py", "python", 1, "x = 1\ny = 2\n"));
  std::string warning;
  json changes = json::array(
      {{{"range",
         {{"start", {{"line", 0}, {"character", 4}}}, {"end", {{"line", 0}, {"character", 5}}}}},
        {"text", "10"}},
       {{"range",
         {{"start", {{"line", 1}, {"character", 0}}}, {"end", {{"line", 2}, {"character", 0}}}}},
        {"text", ""}}});
  ASSERT_TRUE(store.change("file:///t/a.py", 2, changes, PositionEncoding::kUtf16, warning));
  EXPECT_EQ(store.find("file:///t/a.py")->source->text(), "x = 10\n");
  EXPECT_EQ(store.find("file:///t/a.py")->version, 2);
  EXPECT_TRUE(warning.empty());

  // Whole-document replacement; then a range past the end, clamped with a warning.
  ASSERT_TRUE(store.change("file:///t/a.py", 3, json::array({{{"text", "abc"}}}),
                           PositionEncoding::kUtf16, warning));
  json past = json::array(
      {{{"range",
         {{"start", {{"line", 7}, {"character", 0}}}, {"end", {{"line", 9}, {"character", 0}}}}},
        {"text", "!"}}});
  ASSERT_TRUE(store.change("file:///t/a.py", 4, past, PositionEncoding::kUtf16, warning));
  EXPECT_EQ(store.find("file:///t/a.py")->source->text(), "abc!");
  EXPECT_FALSE(warning.empty());

  // Malformed changes leave the document alone.
  warning.clear();
  EXPECT_FALSE(store.change("file:///t/a.py", 5, json::array({{{"range", 3}, {"text", "x"}}}),
                            PositionEncoding::kUtf16, warning));
  EXPECT_FALSE(store.change("file:///t/a.py", 5, json::array({json::object()}),
                            PositionEncoding::kUtf16, warning));
  EXPECT_FALSE(
      store.change("file:///t/other.py", 5, json::array(), PositionEncoding::kUtf16, warning));
  EXPECT_EQ(store.find("file:///t/a.py")->source->text(), "abc!");
  EXPECT_EQ(store.find("file:///t/a.py")->version, 4);
}

bool validUtf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    auto lead = static_cast<unsigned char>(text[i]);
    std::size_t length = lead < 0x80    ? 1
                         : lead >= 0xF0 ? 4
                         : lead >= 0xE0 ? 3
                         : lead >= 0xC2 ? 2
                                        : 0;
    if (length == 0 || i + length > text.size()) return false;
    for (std::size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return false;
    }
    i += length;
  }
  return true;
}

TEST(DocumentStoreTest, Utf8EditInsideAMultiByteCharacterKeepsTheTextValid) {
  DocumentStore store;
  std::string text = "s = '" + std::string(kLine) + "'\n";
  ASSERT_TRUE(store.open("file:///t/u.py", "python", 1, text));
  std::string warning;
  // Bytes 7 and 9 lie inside é (bytes 6-7) and the emoji (8-11): both ends move to the starts
  // of their characters, so the edit replaces é whole.
  json changes = json::array(
      {{{"range",
         {{"start", {{"line", 0}, {"character", 7}}}, {"end", {{"line", 0}, {"character", 9}}}}},
        {"text", "X"}}});
  ASSERT_TRUE(store.change("file:///t/u.py", 2, changes, PositionEncoding::kUtf8, warning));
  std::string edited = store.find("file:///t/u.py")->source->text();
  EXPECT_TRUE(validUtf8(edited)) << edited;
  EXPECT_EQ(edited,
            "s = 'aX\xf0\x9f\x98\x80"
            "b'\n");
  // An insertion inside a character goes before it.
  changes = json::array(
      {{{"range",
         {{"start", {{"line", 0}, {"character", 9}}}, {"end", {{"line", 0}, {"character", 9}}}}},
        {"text", "Y"}}});
  ASSERT_TRUE(store.change("file:///t/u.py", 3, changes, PositionEncoding::kUtf8, warning));
  edited = store.find("file:///t/u.py")->source->text();
  EXPECT_TRUE(validUtf8(edited)) << edited;
  EXPECT_EQ(edited,
            "s = 'aXY\xf0\x9f\x98\x80"
            "b'\n");
}

TEST(SuppressionEditTest, AppendsOrExtendsTheComment) {
  auto edited = [](const std::string& path, const std::string& text, const std::string& rule) {
    SourceFile file(path, text);
    std::optional<TextEdit> edit = suppressionEdit(file, 0, rule);
    if (!edit) return std::string("<none>");
    std::string out = text;
    out.replace(edit->range.begin, edit->range.end - edit->range.begin, edit->replacement);
    return out;
  };
  EXPECT_EQ(edited("a.py", "y = x.item()   \n", "GS401"),
            "y = x.item()  # graphsafe: ignore[GS401]\n");
  EXPECT_EQ(edited("a.py", "y = x.item()  # graphsafe: ignore[GS101]\n", "GS401"),
            "y = x.item()  # graphsafe: ignore[GS101, GS401]\n");
  EXPECT_EQ(edited("a.py", "y = f('#', x.item())  # why\n", "GS401"),
            "y = f('#', x.item())  # why  # graphsafe: ignore[GS401]\n");
  EXPECT_EQ(edited("k.cu", "cudaMemcpy(a, b, n, k);\n", "GS301"),
            "cudaMemcpy(a, b, n, k);  // graphsafe: ignore[GS301]\n");
  EXPECT_EQ(edited("a.py", "y = x + \\\n  1\n", "GS401"), "<none>");
}

TEST(MessageReaderTest, ResynchronizesAfterGarbage) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::string input =
      "Content-Length: 2\r\n\r\n{}"
      "garbage{\"no\": \"header\"}Content-Length: 4\r\n\r\nnull"
      "X-Other: 1\r\nContent-Length: 1\r\n\r\n1";
  ASSERT_EQ(::write(fds[1], input.data(), input.size()), static_cast<ssize_t>(input.size()));
  ::close(fds[1]);
  MessageReader reader(fds[0]);
  Frame first = reader.read();
  EXPECT_EQ(first.kind, Frame::Kind::kMessage);
  EXPECT_EQ(first.body, "{}");
  Frame second = reader.read();
  EXPECT_EQ(second.kind, Frame::Kind::kMessage);
  EXPECT_EQ(second.body, "null");
  Frame third = reader.read();
  EXPECT_EQ(third.kind, Frame::Kind::kMessage);
  EXPECT_EQ(third.body, "1");
  EXPECT_EQ(reader.read().kind, Frame::Kind::kEndOfStream);
  ::close(fds[0]);
}

// Writes `input` into a pipe from a thread (it may be larger than the pipe's buffer) and
// returns the read end.
int pipeFrom(std::string input, std::thread& writer) {
  int fds[2];
  if (::pipe(fds) != 0) return -1;
  writer = std::thread([fd = fds[1], input = std::move(input)] {
    std::string_view rest = input;
    while (!rest.empty()) {
      ssize_t wrote = ::write(fd, rest.data(), rest.size());
      if (wrote <= 0) break;
      rest.remove_prefix(static_cast<std::size_t>(wrote));
    }
    ::close(fd);
  });
  return fds[0];
}

TEST(MessageReaderTest, RefusesAnOversizedLengthWithoutReadingTheBody) {
  // The length is a lie (nothing like 10 GiB follows): the next message is still read.
  std::thread writer;
  int fd = pipeFrom(
      "Content-Length: 10737418240\r\n\r\n"
      "Content-Length: 4\r\n\r\nnull",
      writer);
  ASSERT_GE(fd, 0);
  MessageReader reader(fd);
  Frame refused = reader.read();
  EXPECT_EQ(refused.kind, Frame::Kind::kTooLarge);
  EXPECT_EQ(refused.length, 10737418240u);
  EXPECT_TRUE(refused.body.empty());
  Frame next = reader.read();
  EXPECT_EQ(next.kind, Frame::Kind::kMessage);
  EXPECT_EQ(next.body, "null");
  EXPECT_EQ(reader.read().kind, Frame::Kind::kEndOfStream);
  writer.join();
  ::close(fd);
}

TEST(MessageReaderTest, FindsTheNextHeaderAfterAnOverlongLine) {
  // A body sent after a refused header, or without one, in one line far longer than a header
  // line may be, with the next header glued to its end.
  std::thread writer;
  std::string body(3 * MessageReader::kMaxHeaderLine + 17, 'x');
  int fd = pipeFrom("Content-Length: 999999999999\r\n\r\n" + body + "Content-Length: 2\r\n\r\n{}" +
                        body + "\r\n\r\nContent-Length: 1\r\n\r\n1",
                    writer);
  ASSERT_GE(fd, 0);
  MessageReader reader(fd);
  EXPECT_EQ(reader.read().kind, Frame::Kind::kTooLarge);
  Frame glued = reader.read();
  EXPECT_EQ(glued.kind, Frame::Kind::kMessage);
  EXPECT_EQ(glued.body, "{}");
  Frame garbage = reader.read();
  EXPECT_EQ(garbage.kind, Frame::Kind::kBadHeader);
  EXPECT_NE(garbage.error.find("longer than"), std::string::npos) << garbage.error;
  Frame last = reader.read();
  EXPECT_EQ(last.kind, Frame::Kind::kMessage);
  EXPECT_EQ(last.body, "1");
  writer.join();
  ::close(fd);
}

TEST(JsonRpcTest, ClassifiesMessages) {
  EXPECT_EQ(classifyMessage({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "x"}}),
            MessageKind::kRequest);
  EXPECT_EQ(classifyMessage({{"jsonrpc", "2.0"}, {"method", "x"}}), MessageKind::kNotification);
  EXPECT_EQ(classifyMessage({{"jsonrpc", "2.0"}, {"id", "a"}, {"result", nullptr}}),
            MessageKind::kResponse);
  EXPECT_EQ(classifyMessage({{"id", 1}, {"method", "x"}}), MessageKind::kInvalid);
  EXPECT_EQ(classifyMessage({{"jsonrpc", "2.0"}, {"id", 1.5}, {"method", "x"}}),
            MessageKind::kInvalid);
  EXPECT_EQ(classifyMessage({{"jsonrpc", "2.0"}, {"method", "x"}, {"params", 3}}),
            MessageKind::kInvalid);
  EXPECT_EQ(classifyMessage(json::array()), MessageKind::kInvalid);
  EXPECT_EQ(makeError(json::array(), -1, "m")["id"], nullptr);
}

}  // namespace
}  // namespace graphsafe::lsp
