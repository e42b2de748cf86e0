#include "analyzer/lsp/message_transport.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>

namespace graphsafe::lsp {

namespace {

bool startsWithNoCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    char a = text[i];
    char b = prefix[i];
    if (a >= 'A' && a <= 'Z') a = static_cast<char>(a - 'A' + 'a');
    if (b >= 'A' && b <= 'Z') b = static_cast<char>(b - 'A' + 'a');
    if (a != b) return false;
  }
  return true;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

constexpr std::string_view kLengthHeader = "Content-Length:";

}  // namespace

bool MessageReader::fill() {
  if (eof_) return false;
  if (position_ > 0 && position_ == buffer_.size()) {
    buffer_.clear();
    position_ = 0;
  } else if (position_ > (1u << 20)) {
    buffer_.erase(0, position_);
    position_ = 0;
  }
  char chunk[64 * 1024];
  for (;;) {
    ssize_t got = ::read(fd_, chunk, sizeof chunk);
    if (got > 0) {
      buffer_.append(chunk, static_cast<std::size_t>(got));
      return true;
    }
    if (got < 0 && errno == EINTR) continue;
    eof_ = true;
    return false;
  }
}

std::optional<MessageReader::Line> MessageReader::readLine() {
  Line line;
  bool any = false;
  for (;;) {
    while (position_ < buffer_.size()) {
      char c = buffer_[position_++];
      any = true;
      if (c == '\n') {
        if (!line.text.empty() && line.text.back() == '\r') line.text.pop_back();
        return line;
      }
      line.text += c;
      // Keep the last kMaxHeaderLine bytes of an overlong line: memory stays bounded, and a
      // header that follows a body sent without one, on the same line, is still seen.
      if (line.text.size() >= 2 * kMaxHeaderLine) {
        line.text.erase(0, line.text.size() - kMaxHeaderLine);
        line.cut = true;
      }
    }
    if (!fill()) {
      if (!any) return std::nullopt;
      return line;
    }
  }
}

bool MessageReader::readExactly(std::size_t count, std::string* into) {
  while (count > 0) {
    if (position_ == buffer_.size() && !fill()) return false;
    std::size_t take = std::min(count, buffer_.size() - position_);
    if (into != nullptr) into->append(buffer_, position_, take);
    position_ += take;
    count -= take;
  }
  return true;
}

Frame MessageReader::read() {
  Frame frame;
  std::size_t length = 0;
  bool have_length = false;
  std::string problem;
  bool any_header = false;
  for (;;) {
    std::optional<Line> line = readLine();
    if (!line) {
      if (any_header) {
        frame.kind = Frame::Kind::kBadHeader;
        frame.error = "the stream ended inside a header block";
        return frame;
      }
      frame.kind = Frame::Kind::kEndOfStream;
      return frame;
    }
    if (line->text.empty() && !line->cut) {
      if (!any_header) continue;  // stray blank lines between messages
      break;
    }
    any_header = true;
    std::string_view text = line->text;
    if (line->cut) {
      problem = "a header line is longer than " + std::to_string(kMaxHeaderLine) + " bytes";
    }
    // A body sent without a header block ends up glued to the next header: resynchronize on
    // the header name wherever it appears.
    std::size_t at = std::string_view::npos;
    for (std::size_t i = 0; i + kLengthHeader.size() <= text.size(); ++i) {
      if (startsWithNoCase(text.substr(i), kLengthHeader)) {
        at = i;
        break;
      }
    }
    if (at != std::string_view::npos) {
      if (at > 0 || line->cut) problem = "data outside a message before a header";
      std::string_view value = trim(text.substr(at + kLengthHeader.size()));
      std::size_t parsed = 0;
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
      if (ec != std::errc() || end != value.data() + value.size()) {
        problem = "Content-Length is not a number: '" + std::string(value.substr(0, 40)) + "'";
        have_length = false;
      } else {
        length = parsed;
        have_length = true;
      }
    } else if (!line->cut && !startsWithNoCase(text, "Content-Type:")) {
      std::size_t colon = text.find(':');
      if (colon == std::string_view::npos || colon == 0) {
        problem = "not a header: '" + std::string(text.substr(0, 40)) + "'";
      }
      // Other well-formed headers are allowed and ignored.
    }
  }
  if (!have_length) {
    frame.kind = Frame::Kind::kBadHeader;
    frame.error = problem.empty() ? "a header block without Content-Length" : problem;
    return frame;
  }
  if (length > kMaxBody) {
    // Refused without reading the body. Reading past it would mean trusting the length: a
    // client that declared 10 GiB and sent a 60-byte message would lose every later message
    // while the server waited for bytes that never come. So, as clangd does, the message is
    // dropped and whatever follows the header block is read as the next header block: when
    // the body was not sent, the next message is read as usual; when it was, its bytes are
    // scanned, in bounded memory (readLine keeps at most kMaxHeaderLine bytes of a line), until
    // the `Content-Length:` of the next message, which readLine finds even when it is glued to
    // the end of the body. A body that itself holds a header line can still confuse this, as
    // it would any resynchronizing reader.
    frame.kind = Frame::Kind::kTooLarge;
    frame.length = length;
    frame.error = "a message of " + std::to_string(length) + " bytes is over the limit of " +
                  std::to_string(kMaxBody) + " bytes; it is skipped";
    return frame;
  }
  frame.body.reserve(length);
  if (!readExactly(length, &frame.body)) {
    frame.kind = Frame::Kind::kBadHeader;
    frame.error = "the stream ended inside a message body";
    return frame;
  }
  frame.kind = Frame::Kind::kMessage;
  if (!problem.empty() && problem.starts_with("data outside")) frame.error = problem;
  return frame;
}

bool MessageWriter::write(const std::string& body) {
  std::string framed = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  std::lock_guard lock(mutex_);
  std::string_view rest = framed;
  while (!rest.empty()) {
    ssize_t written = ::write(fd_, rest.data(), rest.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    rest.remove_prefix(static_cast<std::size_t>(written));
  }
  return true;
}

}  // namespace graphsafe::lsp
