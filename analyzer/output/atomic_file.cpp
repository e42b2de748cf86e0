#include "analyzer/output/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <system_error>

namespace graphsafe {

namespace {

std::string errnoText(int error) {
  return std::generic_category().message(error);
}

bool writeAll(int fd, std::string_view content) {
  while (!content.empty()) {
    ssize_t written = ::write(fd, content.data(), content.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    content.remove_prefix(static_cast<std::size_t>(written));
  }
  return true;
}

// Creates a new temporary file next to `target`. Made with open(O_EXCL, 0666) rather than
// mkstemp (which makes it 0600) so that a new output file gets the permissions the umask gives.
int createTemporary(const std::filesystem::path& target, std::string& name) {
  static std::atomic<unsigned> counter{0};
  std::filesystem::path dir = target.parent_path();
  std::string prefix = (dir.empty() ? std::string(".") : dir.string()) + "/." +
                       target.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-";
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    name = prefix + std::to_string(counter.fetch_add(1)) + "-" + std::to_string(stamp % 1000000);
    int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

}  // namespace

bool writeFileAtomically(const std::string& path, std::string_view content, std::string& error) {
  std::string name;
  int fd = createTemporary(std::filesystem::path(path), name);
  if (fd < 0) {
    error = path + ": cannot create a temporary file: " + errnoText(errno);
    return false;
  }
  bool ok = writeAll(fd, content);
  struct stat existing {};
  if (ok && ::stat(path.c_str(), &existing) == 0) ok = ::fchmod(fd, existing.st_mode & 07777) == 0;
  ok = ok && ::fsync(fd) == 0;
  int saved = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  if (ok && ::rename(name.c_str(), path.c_str()) != 0) {
    ok = false;
    saved = errno;
  }
  if (!ok) {
    ::unlink(name.c_str());
    error = path + ": cannot write: " + errnoText(saved);
  }
  return ok;
}

}  // namespace graphsafe
