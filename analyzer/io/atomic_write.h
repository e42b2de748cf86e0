#pragma once

// Writing a file so that nothing is ever lost: readers see the old content or the new one,
// never a part; the file keeps its permissions; and a file someone changed after graphsafe read
// it is left alone rather than overwritten with content computed from the old text.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace graphsafe {

// What a file looked like at one moment: enough to tell whether it changed since.
struct FileSnapshot {
  bool exists = false;
  bool regular = true;  // false for a FIFO or device: nothing to compare, see below
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;       // modification time, nanoseconds since the epoch
  std::uint64_t content_hash = 0;  // FNV-1a (64 bits) of the bytes
  friend bool operator==(const FileSnapshot&, const FileSnapshot&) = default;
};

// FNV-1a, 64 bits: a cheap fingerprint of content (not a defense against an adversary).
std::uint64_t contentHash(std::string_view content);

// The file's snapshot now; {exists = false} when there is no file at `path`, {regular = false}
// for a FIFO or device. nullopt with a one-line `error` when it cannot be read or is a directory.
std::optional<FileSnapshot> snapshotFile(const std::string& path, std::string& error);

// Reads the whole file and its snapshot from the same open file (so that the two agree).
// False with a one-line `error` when it cannot be read.
bool readFileWithSnapshot(const std::string& path, std::string& content, FileSnapshot& snapshot,
                          std::string& error);

// Writes `content` to `path`: a temporary file in the same directory, written, fsynced and
// renamed over `path`, then the directory fsynced. An existing file keeps its permissions (and,
// where allowed, its owner); a symbolic link keeps pointing at its target, which is what gets
// replaced. A FIFO or device (`--output /dev/stdout`) is written directly, as nothing can be
// renamed over it. Returns false with a one-line `error` on failure, leaving `path` untouched
// and no temporary file behind.
bool writeFileAtomically(const std::string& path, std::string_view content, std::string& error);

// The same, but refuses (false, `error` says why, nothing written) when the file at `path` is
// no longer what `expected` recorded: created, removed, resized, touched or edited since. The
// check runs just before the rename, after the new content is safely on disk. FIFOs and devices
// are written without the check.
bool writeFileAtomically(const std::string& path, std::string_view content,
                         const FileSnapshot& expected, std::string& error);

// For files graphsafe owns (its cache): whatever is at `path`, a symbolic link, a FIFO or a
// file, is replaced by the new file, never written through, so that a link planted in the cache
// cannot make a run overwrite the file it points at. Permissions are the umask's.
bool replaceOwnFileAtomically(const std::string& path, std::string_view content,
                              std::string& error);

// Whether `name` is a temporary file writeFileAtomically() made (".<file>.graphsafe-<pid>-...
// .tmp"), and the process that made it: a temporary whose process is gone was left by a run
// that was killed while writing.
bool isAtomicWriteTemporary(std::string_view name, long& pid);

}  // namespace graphsafe
