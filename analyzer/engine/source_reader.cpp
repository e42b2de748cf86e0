#include "analyzer/engine/source_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <system_error>

#include "analyzer/source/utf8.h"

namespace graphsafe {

namespace {

std::string errnoMessage(int error) {
  return std::generic_category().message(error);
}

// "612 bytes", "3.5 KB", "10.0 MB": sizes as a person reads them (binary multiples).
std::string humanSize(std::size_t bytes) {
  char buffer[64];
  if (bytes < 1024) {
    std::snprintf(buffer, sizeof buffer, "%zu bytes", bytes);
  } else if (bytes < (1u << 20)) {
    std::snprintf(buffer, sizeof buffer, "%.1f KB", static_cast<double>(bytes) / 1024.0);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.1f MB",
                  static_cast<double>(bytes) / static_cast<double>(1u << 20));
  }
  return buffer;
}

std::string tooLarge(std::size_t bytes, std::size_t limit) {
  return "skipped: " + humanSize(bytes) + " is over the " + humanSize(limit) +
         " limit (--max-file-size)";
}

// Closes the descriptor on every path out of readSource.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// The encoding a file in UTF-16 or UTF-32 is in ("UTF-16 (little-endian)"), from its byte order
// mark, or without one from where its NUL bytes are: text in the ASCII range has a NUL in every
// code unit byte but the low one. Empty when the text is neither.
std::string wideEncoding(std::string_view text) {
  auto starts = [&](std::string_view mark) { return text.starts_with(mark); };
  using namespace std::string_view_literals;
  // UTF-32 first: its little-endian mark begins with UTF-16's.
  if (starts("\xFF\xFE\0\0"sv)) return "UTF-32 (little-endian, with a byte order mark)";
  if (starts("\0\0\xFE\xFF"sv)) return "UTF-32 (big-endian, with a byte order mark)";
  if (starts("\xFF\xFE"sv)) return "UTF-16 (little-endian, with a byte order mark)";
  if (starts("\xFE\xFF"sv)) return "UTF-16 (big-endian, with a byte order mark)";
  // How often each byte of a 4-byte group is NUL, over the first 64 KB.
  const std::size_t sample = std::min<std::size_t>(text.size(), 1 << 16) / 4 * 4;
  if (sample < 4) {
    if (text.size() == 2 && text[0] != '\0' && text[1] == '\0') return "UTF-16 (little-endian)";
    if (text.size() == 2 && text[0] == '\0' && text[1] != '\0') return "UTF-16 (big-endian)";
    return {};
  }
  std::size_t nul[4] = {0, 0, 0, 0};
  for (std::size_t i = 0; i < sample; ++i) nul[i % 4] += text[i] == '\0' ? 1 : 0;
  const std::size_t groups = sample / 4;
  // Mostly NUL (3 in 4 or more: text outside the ASCII range has other high bytes), or hardly
  // ever (1 in 8 or fewer).
  auto mostly = [&](std::size_t count) { return count * 4 >= groups * 3; };
  auto rarely = [&](std::size_t count) { return count * 8 <= groups; };
  if (rarely(nul[0]) && mostly(nul[1]) && mostly(nul[2]) && mostly(nul[3])) {
    return "UTF-32 (little-endian)";
  }
  if (mostly(nul[0]) && mostly(nul[1]) && mostly(nul[2]) && rarely(nul[3])) {
    return "UTF-32 (big-endian)";
  }
  if (rarely(nul[0]) && rarely(nul[2]) && mostly(nul[1]) && mostly(nul[3])) {
    return "UTF-16 (little-endian)";
  }
  if (mostly(nul[0]) && mostly(nul[2]) && rarely(nul[1]) && rarely(nul[3])) {
    return "UTF-16 (big-endian)";
  }
  return {};
}

}  // namespace

std::string checkSourceText(const std::string& text, const AnalysisSettings& settings) {
  if (text.size() > settings.max_file_bytes) return tooLarge(text.size(), settings.max_file_bytes);
  // A byte order mark of UTF-16 or UTF-32 is named even without NUL bytes: it is never UTF-8.
  const bool has_nul = std::memchr(text.data(), '\0', text.size()) != nullptr;
  if (has_nul || text.starts_with("\xFF\xFE") || text.starts_with("\xFE\xFF")) {
    if (std::string encoding = wideEncoding(text); !encoding.empty()) {
      return "skipped: " + encoding + " file; graphsafe reads UTF-8";
    }
  }
  if (has_nul) {
    return "skipped: binary file (contains NUL bytes)";
  }
  std::size_t bad = firstInvalidUtf8(text);
  if (bad != std::string_view::npos) {
    std::size_t line = 1;
    for (std::size_t i = 0; i < bad; ++i) line += text[i] == '\n' ? 1 : 0;
    char detail[96];
    std::snprintf(detail, sizeof detail, "invalid byte 0x%02X on line %zu, byte offset %zu",
                  static_cast<unsigned>(static_cast<unsigned char>(text[bad])), line, bad);
    return std::string("skipped: not valid UTF-8 (") + detail + ")";
  }
  return {};
}

SourceFilePtr readSource(const std::string& path, const AnalysisSettings& settings,
                         std::vector<Notice>& notices) {
  // O_NONBLOCK: a FIFO named like a source file must not hang the run.
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) {
    notices.push_back({path, -1, "cannot read: " + errnoMessage(errno), /*incomplete=*/true});
    return nullptr;
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) {
    notices.push_back({path, -1, "cannot read: " + errnoMessage(errno), /*incomplete=*/true});
    return nullptr;
  }
  if (S_ISDIR(info.st_mode)) {
    notices.push_back({path, -1, "cannot read: " + errnoMessage(EISDIR), /*incomplete=*/true});
    return nullptr;
  }
  if (!S_ISREG(info.st_mode)) {
    notices.push_back({path, -1, "skipped: not a regular file", /*incomplete=*/true});
    return nullptr;
  }
  auto size = static_cast<std::size_t>(info.st_size);
  if (size > settings.max_file_bytes) {
    notices.push_back({path, -1, tooLarge(size, settings.max_file_bytes), /*incomplete=*/true});
    return nullptr;
  }

  // Read to the end rather than trusting st_size: the file may change while we read it.
  std::string text;
  text.reserve(size);
  char buffer[1 << 16];
  while (true) {
    ssize_t got = ::read(fd.get(), buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR) continue;
      notices.push_back({path, -1, "cannot read: " + errnoMessage(errno), /*incomplete=*/true});
      return nullptr;
    }
    if (got == 0) break;
    text.append(buffer, static_cast<std::size_t>(got));
    if (text.size() > settings.max_file_bytes) break;
  }

  std::string problem = checkSourceText(text, settings);
  if (!problem.empty()) {
    notices.push_back({path, -1, std::move(problem), /*incomplete=*/true});
    return nullptr;
  }
  return std::make_shared<const SourceFile>(path, std::move(text));
}

}  // namespace graphsafe
