#pragma once

// The files of the cache directory (.graphsafe_cache/), shared by its two kinds of entries: the
// run entries of the result cache (result_cache.h) and the C++ unit entries (unit_cache.h).
// An entry file is a magic line, a seal line (cache_seal.h: a keyed hash of the payload under
// this user's key) and a payload. The directory may be a stranger's (a checkout's own
// `.graphsafe_cache/`), so an entry is data from an untrusted place: one that is missing,
// foreign, unsealed, a link, too large, cut short or corrupt reads as nothing, never as an
// error, and a sealed one is still decoded with bounds (parseEntryJson()). Entries are written
// atomically, the directory is created with a .gitignore and a CACHEDIR.TAG, and it is kept
// under a size bound.
//
// Both kinds record the files their content depends on besides the analyzed ones (headers,
// compile databases) as dependency records, checked the same way on load.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "analyzer/io/file_stamp.h"

namespace graphsafe {

// The payload of the entry file at `path` written with `magic` and sealed with this user's
// key, or nullopt (also when there is no key: the cache is then off).
std::optional<std::string> readCacheEntry(const std::string& path, const std::string& magic);

// An entry larger than this is not one graphsafe wrote (the directory's own bound is 64 MiB).
constexpr std::size_t kMaxCacheEntryBytes = std::size_t{64} << 20;

// Entry JSON is never nested deeper than this: a deeper document is not an entry.
constexpr int kMaxCacheEntryDepth = 12;

// Parses an entry's JSON, refusing documents nested deeper than kMaxCacheEntryDepth (whose
// recursive handling could exhaust the stack); nullopt for anything that is not such JSON.
std::optional<nlohmann::json> parseEntryJson(std::string_view text);

// Writes an entry file atomically, sealed, creating `directory` when needed. Failures (no key
// among them) are silent: the cache is an optimization.
void writeCacheEntry(const std::string& directory, const std::string& path,
                     const std::string& magic, const std::string& payload);

// Removes entries (files named `run-*.entry` and `unit-*.entry`) beyond `max_bytes`, the least
// recently written or used first, and temporaries whose writing process is gone.
void pruneCacheDirectory(const std::string& directory, std::uint64_t max_bytes);

// The content hash of a file read whole, or nullopt when it cannot be read.
std::optional<std::uint64_t> hashOfFile(const std::string& path);

// [path, content hash, stamp fields...] of a dependency, taken now; nullopt when it cannot be
// read.
std::optional<nlohmann::json> dependencyRecordNow(const std::string& path);

// Whether a recorded dependency is unchanged: its stamp is the recorded one (and was not racy
// when the entry was written at `written_ns`), or its content hashes the same. A record proven
// unchanged by its content gets the new stamp, and `refreshed` is set.
bool dependencyUnchanged(nlohmann::json& record, std::int64_t written_ns, bool& refreshed);

// A 16-digit hexadecimal spelling of a hash, for file names and checksums.
std::string hexHash(std::uint64_t value);

}  // namespace graphsafe
