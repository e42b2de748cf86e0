#pragma once

// Writing a file so that nothing is ever lost: readers see the old content or the new one,
// never a part; the file keeps its permissions; and a file someone changed after graphsafe read
// it is left alone rather than overwritten with content computed from the old text.
//
// And writing it where the user meant: the tree graphsafe analyzes is a stranger's (a pull
// request's checkout), symbolic links included, so a write to a path inside that tree never
// follows a link out of it (LinkBoundary). The directory is opened once and the temporary file
// is made and renamed relative to it (openat, renameat), never through a link at its own name.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

// The trees whose content a stranger may have written: the directories a run analyzes, the
// working directory and the repositories around them. Inside one of them a write follows no
// symbolic link that leads out of it:
// - a directory on the way that is a link out of the tree refuses the write;
// - a link at the file's own name is replaced by the new file, never written through (a report,
//   a baseline), or, with `edit_link_targets` (the source files --fix edits), the file it points
//   to is written when that file lies inside the same tree, and the write is refused otherwise.
// A link to a FIFO or character device (`/dev/stdout`) is written through, as nothing can be
// renamed over it. Paths outside every root are the user's: their links are followed. A root
// of `/` bounds nothing and is ignored.
struct LinkBoundary {
  std::vector<std::string> roots;  // absolute or relative to the working directory
  bool edit_link_targets = false;
};

// FNV-1a, 64 bits: a cheap fingerprint of content (not a defense against an adversary).
std::uint64_t contentHash(std::string_view content);

// The file's snapshot now, as a write under `boundary` would find it; {exists = false} when
// there is no file at `path` (or only a link the write would replace), {regular = false} for a
// FIFO or device. nullopt with a one-line `error` when it cannot be read, is a directory, or the
// boundary refuses the path.
std::optional<FileSnapshot> snapshotFile(const std::string& path, std::string& error,
                                         const LinkBoundary& boundary = {});

// Reads the whole file and its snapshot from the same open file (so that the two agree).
// False with a one-line `error` when it cannot be read.
bool readFileWithSnapshot(const std::string& path, std::string& content, FileSnapshot& snapshot,
                          std::string& error);

// Writes `content` to `path`: a temporary file in the same directory, written, fsynced and
// renamed over `path`, then the directory fsynced. An existing file keeps its permissions (and,
// where allowed, its owner); a new one gets those the umask gives. Outside the boundary's roots
// a symbolic link keeps pointing at its target, which is what gets replaced; inside them, see
// LinkBoundary. A FIFO or device is written directly, as nothing can be renamed over it.
// Returns false with a one-line `error` on failure, leaving `path` untouched and no temporary
// file behind.
bool writeFileAtomically(const std::string& path, std::string_view content, std::string& error,
                         const LinkBoundary& boundary = {});

// The same, but refuses (false, `error` says why, nothing written) when the file at `path` is
// no longer what `expected` recorded (snapshotFile() under the same boundary): created,
// removed, resized, touched or edited since. The check runs just before the rename, after the
// new content is safely on disk. FIFOs and devices are written without the check.
bool writeFileAtomically(const std::string& path, std::string_view content,
                         const FileSnapshot& expected, std::string& error,
                         const LinkBoundary& boundary = {});

// For files graphsafe owns (its cache): whatever is at `path`, a symbolic link, a FIFO or a
// file, is replaced by the new file, never written through, so that a link planted in the cache
// cannot make a run overwrite the file it points at. Permissions are the umask's.
bool replaceOwnFileAtomically(const std::string& path, std::string_view content,
                              std::string& error);

// Whether `path`, inside one of the boundary's roots, reaches a place outside that root through
// a symbolic link (its own name included); false for a path outside every root. A directory
// graphsafe keeps its own files in (the cache) must not be such a path.
bool leavesBoundary(const std::string& path, const LinkBoundary& boundary);

// Whether `name` is a temporary file writeFileAtomically() made (".<file>.graphsafe-<pid>-...
// .tmp"), and the process that made it: a temporary whose process is gone was left by a run
// that was killed while writing.
bool isAtomicWriteTemporary(std::string_view name, long& pid);

}  // namespace graphsafe
