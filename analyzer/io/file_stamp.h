#pragma once

// What stat(2) says of a file: enough to take it as unchanged without reading it, as git's index
// does. A file modified within kRacyWindowNs of the moment its stamp was taken cannot be told
// apart from a later edit in the same time stamp, so a caller re-reads such a file.

#include <cstdint>
#include <optional>
#include <string>

namespace graphsafe {

inline constexpr std::int64_t kRacyWindowNs = 2'000'000'000;

struct FileStamp {
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::int64_t ctime_ns = 0;
  std::uint64_t inode = 0;
  friend bool operator==(const FileStamp&, const FileStamp&) = default;
};

// The stamp of `path` (links followed), or nullopt when it cannot be stat'ed.
std::optional<FileStamp> stampFile(const std::string& path);

// The wall clock, in nanoseconds since the epoch (the time base of file stamps).
std::int64_t wallClockNs();

// Whether a file stamped `stamp` at `taken_ns` may have changed since without its stamp showing.
inline bool racyStamp(const FileStamp& stamp, std::int64_t taken_ns) {
  return stamp.mtime_ns >= taken_ns - kRacyWindowNs;
}

}  // namespace graphsafe
