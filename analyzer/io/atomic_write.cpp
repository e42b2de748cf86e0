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

// Hashes the regular file open at `fd` (already fstat'ed into `info`).
bool snapshotOpenFile(int fd, const struct stat& info, std::string* content,
                      FileSnapshot& snapshot) {
  snapshot.exists = true;
  snapshot.regular = true;
  snapshot.mtime_ns = mtimeOf(info);
  return readAndHash(fd, content, snapshot.content_hash, snapshot.size);
}

// A file read by path, its links followed: what readFileWithSnapshot() reads.
bool snapshotByPath(const std::string& path, std::string& content, FileSnapshot& snapshot,
                    std::string& error) {
  snapshot = {};
  Descriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  struct stat info {};
  if (fd.get() < 0 || ::fstat(fd.get(), &info) != 0) {
    error = path + ": cannot read: " + errnoText(errno);
    return false;
  }
  if (!S_ISREG(info.st_mode)) {
    error = path + ": not a regular file";
    return false;
  }
  if (!snapshotOpenFile(fd.get(), info, &content, snapshot)) {
    error = path + ": cannot read: " + errnoText(errno);
    return false;
  }
  return true;
}

// Where a write lands: the directory to open, the name in it, and whether the name is written
// through (a FIFO or device, or the link to one) rather than replaced.
struct Place {
  fs::path directory;
  std::string name;
  bool in_place = false;
};

fs::path directoryOf(const fs::path& file) {
  fs::path dir = file.parent_path();
  return dir.empty() ? fs::path(".") : dir;
}

bool isDevice(mode_t mode) {
  return S_ISFIFO(mode) || S_ISCHR(mode);
}

// Outside the boundary: a symbolic link is followed (even when its target does not exist yet),
// so that writing replaces the target and the link survives.
bool followLinks(const std::string& path, Place& place, std::string& error) {
  fs::path resolved = path;
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(resolved, ec)) {
      place.directory = directoryOf(resolved);
      place.name = resolved.filename().string();
      return true;
    }
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

fs::path absoluteNormal(const std::string& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  return (ec ? fs::path(path) : absolute).lexically_normal();
}

bool inside(const fs::path& path, const fs::path& dir) {
  auto relative = path.lexically_relative(dir);
  return !relative.empty() && *relative.begin() != "..";
}

// The root of `boundary` that `absolute` lies in (lexically), or nullopt.
std::optional<fs::path> rootOf(const fs::path& absolute, const LinkBoundary& boundary) {
  std::optional<fs::path> best;
  for (const std::string& root : boundary.roots) {
    fs::path normal = absoluteNormal(root);
    if (normal.has_filename() == false && normal.has_parent_path()) normal = normal.parent_path();
    if (normal == normal.root_path()) continue;  // `/` bounds nothing
    if (inside(absolute, normal) && absolute != normal &&
        (!best || normal.native().size() > best->native().size())) {
      best = normal;
    }
  }
  return best;
}

// Inside a root: the real directory must stay in the real root, and a link at the name is
// replaced, or followed to a file inside the root when the boundary says so.
bool placeInside(const std::string& path, const fs::path& absolute, const fs::path& root,
                 const LinkBoundary& boundary, Place& place, std::string& error) {
  std::error_code ec;
  fs::path real_root = fs::canonical(root, ec);
  if (ec) real_root = root;
  const std::string tree = root.generic_string();
  if (!absolute.has_filename()) {
    error = path + ": cannot write: " + errnoText(EISDIR);
    return false;
  }
  fs::path real_directory = fs::canonical(absolute.parent_path(), ec);
  if (ec) {
    error = path + ": cannot write: " + ec.message();
    return false;
  }
  if (real_directory != real_root && !inside(real_directory, real_root)) {
    error = path + ": not written: a symbolic link on the way leads out of " + tree +
            ", the tree being analyzed (name the directory it points to, if that is meant)";
    return false;
  }
  place.directory = real_directory;
  place.name = absolute.filename().string();
  fs::path at = real_directory / place.name;
  struct stat info {};
  if (::lstat(at.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) return true;
  struct stat target {};
  if (::stat(at.c_str(), &target) == 0 && isDevice(target.st_mode)) {
    place.in_place = true;
    return true;
  }
  if (!boundary.edit_link_targets) return true;  // the link is replaced
  fs::path real = fs::canonical(at, ec);
  if (ec || !inside(real, real_root)) {
    error = path + ": not written: it is a symbolic link to a file outside " + tree +
            ", the tree being analyzed";
    return false;
  }
  place.directory = directoryOf(real);
  place.name = real.filename().string();
  return true;
}

bool placeWrite(const std::string& path, const LinkBoundary& boundary, Place& place,
                std::string& error) {
  const fs::path absolute = absoluteNormal(path);
  if (std::optional<fs::path> root = rootOf(absolute, boundary)) {
    return placeInside(path, absolute, *root, boundary, place, error);
  }
  return followLinks(path, place, error);
}

// What is at `name` in `dir`, as a write would find it: a link there is replaced, so counts as
// no file.
bool snapshotAt(int dir, const Place& place, const std::string& path, FileSnapshot& snapshot,
                std::string& error) {
  snapshot = {};
  struct stat info {};
  const int flags = place.in_place ? 0 : AT_SYMLINK_NOFOLLOW;
  if (::fstatat(dir, place.name.c_str(), &info, flags) != 0) {
    if (errno == ENOENT) return true;
    error = path + ": cannot read: " + errnoText(errno);
    return false;
  }
  if (S_ISLNK(info.st_mode)) return true;
  if (S_ISDIR(info.st_mode)) {
    error = path + ": not a regular file";
    return false;
  }
  if (!S_ISREG(info.st_mode)) {
    snapshot.exists = true;
    snapshot.regular = false;
    return true;
  }
  Descriptor fd(::openat(dir, place.name.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW));
  if (fd.get() < 0 || ::fstat(fd.get(), &info) != 0) {
    error = path + ": cannot read: " + errnoText(errno);
    return false;
  }
  if (!S_ISREG(info.st_mode)) {
    error = path + ": not a regular file";
    return false;
  }
  if (!snapshotOpenFile(fd.get(), info, nullptr, snapshot)) {
    error = path + ": cannot read: " + errnoText(errno);
    return false;
  }
  return true;
}

int openDirectory(const fs::path& dir) {
  return ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

// A new, empty temporary file in `dir` next to `name`. openat(O_EXCL, 0666) rather than mkstemp
// (which makes it 0600), so that a new file gets the permissions the umask gives.
int createTemporary(int dir, const std::string& name, std::string& temporary) {
  static std::atomic<unsigned> counter{0};
  std::string prefix = "." + name + ".graphsafe-" + std::to_string(::getpid()) + "-";
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    temporary = prefix + std::to_string(counter.fetch_add(1)) + "-" +
                std::to_string(stamp % 1000000) + ".tmp";
    int fd = ::openat(dir, temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
                      0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

// FIFOs and devices cannot be replaced; they are written in place.
bool writeInPlace(int dir, const Place& place, const std::string& path, std::string_view content,
                  std::string& error) {
  Descriptor fd(::openat(dir, place.name.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0 || !writeAll(fd.get(), content) || !fd.reset()) {
    error = path + ": cannot write: " + errnoText(errno);
    return false;
  }
  return true;
}

bool unchangedSince(int dir, const Place& place, const std::string& path,
                    const FileSnapshot& expected, std::string& error) {
  FileSnapshot now;
  if (!snapshotAt(dir, place, path, now, error)) return false;
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

// Replaces `place.name` in `place.directory` with `content`, relative to the opened directory:
// whatever sits at the name (a link included) is renamed over, never written through, unless
// it is a FIFO or a device.
bool writeAt(const Place& place, const std::string& path, std::string_view content,
             const FileSnapshot* expected, bool own, std::string& error) {
  Descriptor dir(openDirectory(place.directory));
  if (dir.get() < 0) {
    error = path + ": cannot write: " + errnoText(errno);
    return false;
  }
  if (place.in_place) return writeInPlace(dir.get(), place, path, content, error);
  struct stat existing {};
  bool exists = ::fstatat(dir.get(), place.name.c_str(), &existing, AT_SYMLINK_NOFOLLOW) == 0;
  if (!exists && errno != ENOENT) {
    error = path + ": cannot write: " + errnoText(errno);
    return false;
  }
  if (exists && S_ISDIR(existing.st_mode)) {
    error = path + ": cannot write: " + errnoText(EISDIR);
    return false;
  }
  if (exists && !S_ISREG(existing.st_mode)) {
    if (!own && isDevice(existing.st_mode)) {
      return writeInPlace(dir.get(), place, path, content, error);
    }
    if (!own && !S_ISLNK(existing.st_mode)) {
      error = path + ": not a regular file";
      return false;
    }
    exists = false;  // a link (or, for graphsafe's own file, a FIFO): replaced
  }

  std::string temporary;
  Descriptor fd(createTemporary(dir.get(), place.name, temporary));
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
  if (ok && expected != nullptr) {
    ok = unchangedSince(dir.get(), place, path, *expected, error);
  }
  if (ok && ::renameat(dir.get(), temporary.c_str(), dir.get(), place.name.c_str()) != 0) {
    ok = false;
    error = path + ": cannot write: " + errnoText(errno);
  }
  if (!ok) {
    ::unlinkat(dir.get(), temporary.c_str(), 0);
    return false;
  }
  ::fsync(dir.get());  // the rename itself, durable; best effort: some file systems refuse
  return true;
}

bool write(const std::string& path, std::string_view content, const FileSnapshot* expected,
           const LinkBoundary& boundary, std::string& error) {
  Place place;
  if (!placeWrite(path, boundary, place, error)) return false;
  return writeAt(place, path, content, expected, /*own=*/false, error);
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

std::optional<FileSnapshot> snapshotFile(const std::string& path, std::string& error,
                                         const LinkBoundary& boundary) {
  Place place;
  if (!placeWrite(path, boundary, place, error)) return std::nullopt;
  FileSnapshot snapshot;
  if (place.in_place) {
    snapshot.exists = true;
    snapshot.regular = false;
    return snapshot;
  }
  Descriptor dir(openDirectory(place.directory));
  if (dir.get() < 0) {
    if (errno == ENOENT) return snapshot;  // no directory, no file: the write will say why
    error = path + ": cannot read: " + errnoText(errno);
    return std::nullopt;
  }
  if (!snapshotAt(dir.get(), place, path, snapshot, error)) return std::nullopt;
  return snapshot;
}

bool readFileWithSnapshot(const std::string& path, std::string& content, FileSnapshot& snapshot,
                          std::string& error) {
  content.clear();
  return snapshotByPath(path, content, snapshot, error);
}

bool writeFileAtomically(const std::string& path, std::string_view content, std::string& error,
                         const LinkBoundary& boundary) {
  return write(path, content, nullptr, boundary, error);
}

bool writeFileAtomically(const std::string& path, std::string_view content,
                         const FileSnapshot& expected, std::string& error,
                         const LinkBoundary& boundary) {
  return write(path, content, &expected, boundary, error);
}

bool replaceOwnFileAtomically(const std::string& path, std::string_view content,
                              std::string& error) {
  Place place;
  place.directory = directoryOf(path);
  place.name = fs::path(path).filename().string();
  return writeAt(place, path, content, nullptr, /*own=*/true, error);
}

bool leavesBoundary(const std::string& path, const LinkBoundary& boundary) {
  const fs::path absolute = absoluteNormal(path);
  std::optional<fs::path> root = rootOf(absolute, boundary);
  if (!root) return false;
  std::error_code ec;
  fs::path real_root = fs::canonical(*root, ec);
  if (ec) return true;
  // The deepest part of the path that exists, resolved: what does not exist yet is made there.
  fs::path existing = absolute;
  while (!fs::exists(fs::symlink_status(existing, ec)) && existing.has_parent_path() &&
         existing != existing.root_path()) {
    existing = existing.parent_path();
  }
  fs::path real = fs::canonical(existing, ec);  // a dangling link fails here: it leaves
  return ec || (real != real_root && !inside(real, real_root));
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
