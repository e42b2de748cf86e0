#include "analyzer/engine/source_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
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

}  // namespace

std::string checkSourceText(const std::string& text, const AnalysisSettings& settings) {
  if (text.size() > settings.max_file_bytes) return tooLarge(text.size(), settings.max_file_bytes);
  if (std::memchr(text.data(), '\0', text.size()) != nullptr) {
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
    notices.push_back({path, -1, "cannot read: " + errnoMessage(errno)});
    return nullptr;
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) {
    notices.push_back({path, -1, "cannot read: " + errnoMessage(errno)});
    return nullptr;
  }
  if (S_ISDIR(info.st_mode)) {
    notices.push_back({path, -1, "cannot read: " + errnoMessage(EISDIR)});
    return nullptr;
  }
  if (!S_ISREG(info.st_mode)) {
    notices.push_back({path, -1, "skipped: not a regular file"});
    return nullptr;
  }
  auto size = static_cast<std::size_t>(info.st_size);
  if (size > settings.max_file_bytes) {
    notices.push_back({path, -1, tooLarge(size, settings.max_file_bytes)});
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
      notices.push_back({path, -1, "cannot read: " + errnoMessage(errno)});
      return nullptr;
    }
    if (got == 0) break;
    text.append(buffer, static_cast<std::size_t>(got));
    if (text.size() > settings.max_file_bytes) break;
  }

  std::string problem = checkSourceText(text, settings);
  if (!problem.empty()) {
    notices.push_back({path, -1, std::move(problem)});
    return nullptr;
  }
  return std::make_shared<const SourceFile>(path, std::move(text));
}

}  // namespace graphsafe
