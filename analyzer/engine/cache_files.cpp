#include "analyzer/engine/cache_files.h"

#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "analyzer/engine/cache_seal.h"
#include "analyzer/io/atomic_write.h"
#include "analyzer/io/bounded_read.h"
#include "analyzer/io/json_bytes.h"

namespace graphsafe {

namespace fs = std::filesystem;
using nlohmann::json;

std::string hexHash(std::uint64_t value) {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(value));
  return buffer;
}

std::optional<std::string> readCacheEntry(const std::string& path, const std::string& magic) {
  const CacheSeal* seal = machineCacheSeal();
  if (seal == nullptr) return std::nullopt;
  // Only a regular file graphsafe wrote: a link in the directory is not followed.
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return std::nullopt;
  std::string text;
  std::string ignored;
  if (!readRegularFile(path, kMaxCacheEntryBytes, text, ignored)) return std::nullopt;
  const std::size_t first_end = text.find('\n');
  if (first_end == std::string::npos || std::string_view(text).substr(0, first_end) != magic) {
    return std::nullopt;
  }
  const std::size_t seal_end = text.find('\n', first_end + 1);
  if (seal_end == std::string::npos) return std::nullopt;
  std::string_view sealed = std::string_view(text).substr(first_end + 1, seal_end - first_end - 1);
  std::string payload = text.substr(seal_end + 1);
  if (!seal->verify(payload, sealed)) return std::nullopt;
  return payload;
}

std::optional<json> parseEntryJson(std::string_view text) {
  // The callback sees each value's depth as it is parsed: a deeper one ends the parse before
  // any recursive code (dump, copy, compare) ever meets it.
  struct TooDeep {};
  try {
    return json::parse(text, [](int depth, json::parse_event_t, json&) {
      if (depth > kMaxCacheEntryDepth) throw TooDeep{};
      return true;
    });
  } catch (const TooDeep&) {
    return std::nullopt;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

void writeCacheEntry(const std::string& directory, const std::string& path,
                     const std::string& magic, const std::string& payload) {
  if (payload.size() > kMaxCacheEntryBytes) return;  // it would not be read back
  std::error_code ec;
  if (!fs::is_directory(directory, ec)) {
    fs::create_directories(directory, ec);
    if (ec) return;
    // The cache is nobody's source: keep it out of version control and backups.
    std::string ignored;
    replaceOwnFileAtomically(directory + "/.gitignore", "# created by graphsafe\n*\n", ignored);
    replaceOwnFileAtomically(directory + "/CACHEDIR.TAG",
                             "Signature: 8a477f597d28d172789f06886806bc55\n"
                             "# This directory is graphsafe's result cache (.graphsafe_cache).\n",
                             ignored);
  }
  const CacheSeal* seal = machineCacheSeal();
  if (seal == nullptr) return;
  std::string content = magic + "\n" + seal->seal(payload) + "\n" + payload;
  std::string error;
  replaceOwnFileAtomically(path, content, error);
}

void pruneCacheDirectory(const std::string& directory, std::uint64_t max_bytes) {
  struct Entry {
    fs::file_time_type time;
    std::uint64_t size;
    fs::path path;
  };
  std::vector<Entry> entries;
  std::error_code ec;
  for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    // A temporary whose writer is gone (killed mid-write) is never renamed into place.
    if (long pid = 0; isAtomicWriteTemporary(name, pid)) {
      if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
        fs::remove(it->path(), ec);
        ec.clear();
      }
      continue;
    }
    bool entry =
        (name.starts_with("run-") || name.starts_with("unit-")) && name.ends_with(".entry");
    if (!entry) continue;
    if (it->is_symlink(ec)) {
      fs::remove(it->path(), ec);  // not an entry graphsafe wrote; the link goes, not its target
      ec.clear();
      continue;
    }
    std::error_code stat_error;
    auto size = it->file_size(stat_error);
    auto time = it->last_write_time(stat_error);
    if (!stat_error) entries.push_back({time, size, it->path()});
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.time > b.time; });
  std::uint64_t total = 0;
  for (const Entry& entry : entries) {
    total += entry.size;
    if (total > max_bytes) fs::remove(entry.path, ec);
  }
}

std::optional<std::uint64_t> hashOfFile(const std::string& path) {
  // A header or compile database, read whole; never a FIFO or device, never without a bound.
  constexpr std::size_t kMaxDependencyBytes = std::size_t{256} << 20;
  std::string text;
  std::string ignored;
  if (!readRegularFile(path, kMaxDependencyBytes, text, ignored)) return std::nullopt;
  return contentHash(text);
}

namespace {

json dependencyRecord(const std::string& path, std::uint64_t hash,
                      const std::optional<FileStamp>& stamp) {
  FileStamp fields = stamp.value_or(FileStamp{});
  return json::array(
      {bytesToJson(path), hash, fields.size, fields.mtime_ns, fields.ctime_ns, fields.inode});
}

}  // namespace

std::optional<json> dependencyRecordNow(const std::string& path) {
  std::optional<FileStamp> stamp = stampFile(path);
  std::optional<std::uint64_t> hash = hashOfFile(path);
  if (!hash) return std::nullopt;
  return dependencyRecord(path, *hash, stamp);
}

bool dependencyUnchanged(json& record, std::int64_t written_ns, bool& refreshed) {
  const std::string path = bytesFromJson(record.at(0));
  FileStamp recorded{record.at(2).get<std::uint64_t>(), record.at(3).get<std::int64_t>(),
                     record.at(4).get<std::int64_t>(), record.at(5).get<std::uint64_t>()};
  std::optional<FileStamp> now = stampFile(path);
  if (!now) return false;
  if (*now == recorded && !racyStamp(recorded, written_ns)) return true;
  std::optional<std::uint64_t> current = hashOfFile(path);
  if (!current || *current != record.at(1).get<std::uint64_t>()) return false;
  record = dependencyRecord(path, *current, now);
  refreshed = true;
  return true;
}

}  // namespace graphsafe
