#pragma once

// LSP base protocol framing over a pair of file descriptors: `Content-Length: N` headers, a
// blank line, then N bytes of JSON. Reading tolerates malformed headers and resynchronizes on
// the next `Content-Length:`; writing is serialized so that any thread may send.

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>

namespace graphsafe::lsp {

// One read from the transport: a message body, or a framing problem to report.
struct Frame {
  enum class Kind { kMessage, kBadHeader, kEndOfStream };
  Kind kind = Kind::kEndOfStream;
  std::string body;   // kMessage: the JSON text
  std::string error;  // kBadHeader: what was wrong
};

class MessageReader {
 public:
  explicit MessageReader(int fd) : fd_(fd) {}

  // Blocks until a whole message, a bad header block, or the end of the stream.
  Frame read();

  // Headers and bodies larger than these are refused (the body is skipped, not kept).
  static constexpr std::size_t kMaxHeaderLine = 8 * 1024;
  static constexpr std::size_t kMaxBody = 256u << 20;

 private:
  // One header line without its terminator; nullopt at the end of the stream.
  std::optional<std::string> readLine();
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
