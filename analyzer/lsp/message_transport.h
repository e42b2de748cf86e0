#pragma once

// LSP base protocol framing over a pair of file descriptors: `Content-Length: N` headers, a
// blank line, then N bytes of JSON. Reading tolerates malformed headers and resynchronizes on
// the next `Content-Length:`; writing is serialized so that any thread may send, and blocks
// while the peer does not read (the back-pressure: a producer waits, nothing queues up).
//
// Memory is bounded whatever the peer sends: a header line keeps at most kMaxHeaderLine bytes
// (its tail, so that a header glued to the end of a long line is still found), and a body over
// kMaxBody is never read (see MessageReader::read).

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>

namespace graphsafe::lsp {

// One read from the transport: a message body, or a framing problem to report.
struct Frame {
  enum class Kind { kMessage, kBadHeader, kTooLarge, kEndOfStream };
  Kind kind = Kind::kEndOfStream;
  std::string body;        // kMessage: the JSON text
  std::string error;       // kBadHeader, kTooLarge: what was wrong
  std::size_t length = 0;  // kTooLarge: the refused Content-Length
};

class MessageReader {
 public:
  explicit MessageReader(int fd) : fd_(fd) {}

  // Blocks until a whole message, a bad header block, or the end of the stream.
  Frame read();

  // Header lines longer than this are cut (their tail is kept); a body longer than kMaxBody is
  // refused without reading it. Real LSP messages are far smaller: a 64 MiB document is
  // already more than graphsafe analyzes (its source size limit is 8 MiB).
  static constexpr std::size_t kMaxHeaderLine = 8 * 1024;
  static constexpr std::size_t kMaxBody = std::size_t{64} << 20;

 private:
  struct Line {
    std::string text;  // without its terminator; for a cut line, its last bytes
    bool cut = false;
  };
  // One header line; nullopt at the end of the stream.
  std::optional<Line> readLine();
  bool fill();
  bool readExactly(std::size_t count, std::string* into);

  int fd_;
  std::string buffer_;
  std::size_t position_ = 0;
  bool eof_ = false;
};

class MessageWriter {
 public:
  explicit MessageWriter(int fd) : fd_(fd) {}
  // Frames and writes one body; false when the peer is gone.
  bool write(const std::string& body);

 private:
  int fd_;
  std::mutex mutex_;
};

}  // namespace graphsafe::lsp
