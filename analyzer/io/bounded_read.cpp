#include "analyzer/io/bounded_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace graphsafe {

namespace {

std::string kindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

std::string sizeText(std::size_t bytes) {
  if (bytes >= (std::size_t{1} << 20)) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= 1024) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

bool readRegularFile(const std::string& path, std::size_t max_bytes, std::string& content,
                     std::string& error) {
  content.clear();
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    error = "cannot read: " + std::generic_category().message(errno);
    return false;
  }
  struct stat info {};
  bool ok = ::fstat(fd, &info) == 0;
  if (!ok) {
    error = "cannot read: " + std::generic_category().message(errno);
  } else if (!S_ISREG(info.st_mode)) {
    error = "not a regular file (" + kindOf(info.st_mode) + ")";
    ok = false;
  } else if (static_cast<std::uintmax_t>(info.st_size) > max_bytes) {
    error = "too large (" + sizeText(static_cast<std::size_t>(info.st_size)) + "; the limit is " +
            sizeText(max_bytes) + ")";
    ok = false;
  }
  char buffer[1 << 16];
  while (ok) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      error = "cannot read: " + std::generic_category().message(errno);
      ok = false;
    } else if (got == 0) {
      break;
    } else if (content.size() + static_cast<std::size_t>(got) > max_bytes) {
      // It grew while being read.
      error = path + ": too large (the limit is " + sizeText(max_bytes) + ")";
      ok = false;
    } else {
      content.append(buffer, static_cast<std::size_t>(got));
    }
  }
  ::close(fd);
  if (!ok) content.clear();
  return ok;
}

}  // namespace graphsafe
