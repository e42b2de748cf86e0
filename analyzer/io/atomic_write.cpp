#include "analyzer/io/atomic_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <system_error>

namespace graphsafe {

namespace {

namespace fs = std::filesystem;

std::string errnoText(int error) {
  return std::generic_category().message(error);
}

// Closes the descriptor on every way out.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() { reset(); }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }
  // Closes now; false (errno set) when close reports a failed write.
  bool reset() {
    int fd = fd_;
    fd_ = -1;
    return fd < 0 || ::close(fd) == 0;
  }

 private:
  int fd_;
};

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

std::int64_t mtimeOf(const struct stat& info) {
  return static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec;
}

// Reads what is left of `fd` into `content` (when not null) and hashes it.
bool readAndHash(int fd, std::string* content, std::uint64_t& hash, std::uint64_t& size) {
  hash = contentHash({});
  size = 0;
  char buffer[1 << 16];
  for (;;) {
    ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (got == 0) return true;
    for (ssize_t i = 0; i < got; ++i) {
      hash ^= static_cast<unsigned char>(buffer[i]);
      hash *= 0x100000001b3ULL;
    }
    size += static_cast<std::uint64_t>(got);
    if (content != nullptr) content->append(buffer, static_cast<std::size_t>(got));
  }
}

bool snapshotOpen(const std::string& path, std::string* content, FileSnapshot& snapshot,
                  std::string& error) {
  snapshot = {};
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    if (errno == ENOENT && content == nullptr) return true;  // no file: exists = false
    error = path + ": cannot read: " + errnoText(errno);
    return false;
  }
  if (!S_ISREG(info.st_mode)) {
    // A FIFO or device has no content to compare; it is written in place.
    if (content != nullptr || S_ISDIR(info.st_mode)) {
      error = path + ": not a regular file";
      return false;
    }
    snapshot.exists = true;
    snapshot.regular = false;
    return true;
  }
  Descriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0 || ::fstat(fd.get(), &info) != 0) {
    error = path + ": cannot read: " + errnoText(errno);
    return false;
  }
  if (!S_ISREG(info.st_mode)) {
    error = path + ": not a regular file";
    return false;
  }
  snapshot.exists = true;
  snapshot.mtime_ns = mtimeOf(info);
  if (!readAndHash(fd.get(), content, snapshot.content_hash, snapshot.size)) {
    error = path + ": cannot read: " + errnoText(errno);
    return false;
  }
  return true;
}

// The file a path finally names: a symbolic link is followed (even when its target does not
// exist yet), so that writing replaces the target and the link survives.
bool resolveLinks(const std::string& path, fs::path& resolved, std::string& error) {
  resolved = path;
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(resolved, ec)) return true;
    fs::path target = fs::read_symlink(resolved, ec);
    if (ec) {
      error = path + ": cannot follow the symbolic link: " + ec.message();
      return false;
    }
    resolved = target.is_absolute() ? target : resolved.parent_path() / target;
  }
  error = path + ": cannot write: " + errnoText(ELOOP);
  return false;
}

// A new, empty temporary file next to `target`. open(O_EXCL, 0666) rather than mkstemp (which
// makes it 0600), so that a new file gets the permissions the umask gives.
int createTemporary(const fs::path& target, std::string& name) {
  static std::atomic<unsigned> counter{0};
  fs::path dir = target.parent_path();
  std::string prefix = (dir.empty() ? std::string(".") : dir.string()) + "/." +
                       target.filename().string() + ".graphsafe-" + std::to_string(::getpid()) +
                       "-";
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    name = prefix + std::to_string(counter.fetch_add(1)) + "-" + std::to_string(stamp % 1000000) +
           ".tmp";
    int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

// Makes the rename itself durable. Best effort: some file systems refuse fsync on directories.
void syncDirectory(const fs::path& file) {
  fs::path dir = file.parent_path();
  Descriptor fd(::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() >= 0) ::fsync(fd.get());
}

// FIFOs and devices cannot be replaced; they are written in place.
bool writeInPlace(const std::string& path, std::string_view content, std::string& error) {
  Descriptor fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0 || !writeAll(fd.get(), content) || !fd.reset()) {
    error = path + ": cannot write: " + errnoText(errno);
    return false;
  }
  return true;
}

bool unchangedSince(const std::string& path, const fs::path& target, const FileSnapshot& expected,
                    std::string& error) {
  FileSnapshot now;
  std::string problem;
  if (!snapshotOpen(target.string(), nullptr, now, problem)) {
    error = problem;
    return false;
  }
  if (now == expected) return true;
  if (!expected.exists) {
    error = path + ": not written: the file was created by someone else since graphsafe started";
  } else if (!now.exists) {
    error = path + ": not written: the file was removed since graphsafe read it";
  } else {
    error = path + ": not written: the file changed since graphsafe read it";
  }
  return false;
}

enum class Links { kFollow, kReplace };

bool write(const std::string& path, std::string_view content, const FileSnapshot* expected,
           Links links, std::string& error) {
  fs::path target = path;
  if (links == Links::kFollow && !resolveLinks(path, target, error)) return false;

  struct stat existing {};
  bool exists = (links == Links::kFollow ? ::stat(target.c_str(), &existing)
                                         : ::lstat(target.c_str(), &existing)) == 0;
  if (!exists && errno != ENOENT) {
    error = path + ": cannot write: " + errnoText(errno);
    return false;
  }
  if (exists && S_ISDIR(existing.st_mode)) {
    error = path + ": cannot write: " + errnoText(EISDIR);
    return false;
  }
  if (exists && !S_ISREG(existing.st_mode)) {
    if (links == Links::kFollow) return writeInPlace(path, content, error);
    exists = false;  // a link or FIFO where graphsafe's own file belongs: replaced
  }

  std::string name;
  Descriptor fd(createTemporary(target, name));
  if (fd.get() < 0) {
    error = path + ": cannot create a temporary file: " + errnoText(errno);
    return false;
  }
  // Each step runs only when the ones before it succeeded; the first failure names the error.
  int failure = 0;
  auto step = [&](bool done) {
    if (failure == 0 && !done) failure = errno != 0 ? errno : EIO;
  };
  step(writeAll(fd.get(), content));
  if (failure == 0 && exists) {
    step(::fchmod(fd.get(), existing.st_mode & 07777) == 0);
    // Keeping the owner needs privileges; without them the file becomes the writer's.
    if (existing.st_uid != ::geteuid() || existing.st_gid != ::getegid()) {
      [[maybe_unused]] int ignored = ::fchown(fd.get(), existing.st_uid, existing.st_gid);
    }
  }
  if (failure == 0) step(::fsync(fd.get()) == 0);
  step(fd.reset());
  bool ok = failure == 0;
  if (!ok) error = path + ": cannot write: " + errnoText(failure);
  if (ok && expected != nullptr) ok = unchangedSince(path, target, *expected, error);
  if (ok && ::rename(name.c_str(), target.c_str()) != 0) {
    ok = false;
    error = path + ": cannot write: " + errnoText(errno);
  }
  if (!ok) {
    ::unlink(name.c_str());
    return false;
  }
  syncDirectory(target);
  return true;
}

}  // namespace

std::uint64_t contentHash(std::string_view content) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (char c : content) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

std::optional<FileSnapshot> snapshotFile(const std::string& path, std::string& error) {
  FileSnapshot snapshot;
  if (!snapshotOpen(path, nullptr, snapshot, error)) return std::nullopt;
  return snapshot;
}

bool readFileWithSnapshot(const std::string& path, std::string& content, FileSnapshot& snapshot,
                          std::string& error) {
  content.clear();
  return snapshotOpen(path, &content, snapshot, error);
}

bool writeFileAtomically(const std::string& path, std::string_view content, std::string& error) {
  return write(path, content, nullptr, Links::kFollow, error);
}

bool writeFileAtomically(const std::string& path, std::string_view content,
                         const FileSnapshot& expected, std::string& error) {
  return write(path, content, &expected, Links::kFollow, error);
}

bool replaceOwnFileAtomically(const std::string& path, std::string_view content,
                              std::string& error) {
  return write(path, content, nullptr, Links::kReplace, error);
}

bool isAtomicWriteTemporary(std::string_view name, long& pid) {
  constexpr std::string_view kMarker = ".graphsafe-";
  if (!name.starts_with('.') || !name.ends_with(".tmp")) return false;
  const std::size_t marker = name.rfind(kMarker);
  if (marker == std::string_view::npos) return false;
  std::string_view rest = name.substr(marker + kMarker.size());
  pid = 0;
  std::size_t digits = 0;
  while (digits < rest.size() && digits < 10 && rest[digits] >= '0' && rest[digits] <= '9') {
    pid = pid * 10 + (rest[digits] - '0');
    ++digits;
  }
  return digits > 0 && digits < rest.size() && rest[digits] == '-';
}

}  // namespace graphsafe
