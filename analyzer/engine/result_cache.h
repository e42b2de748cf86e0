#pragma once

// The result cache (`.graphsafe_cache/`): a run's findings and notices, reused when nothing the
// run's result depends on changed.
//
// One entry per run key: graphsafe's version and build, the effective configuration (rules,
// settings, exclusions, per-file ignores, severities, the environment variables the frontends
// read), the working directory and the paths given. An entry records every file of the run,
// in the walker's order, with its content hash (FNV-1a, 64 bits) and stat fields, and whether
// the run lowered it (parsed it into the model: a file that matters, or one a region's calls
// reach).
//
// An entry is reused only when the file list is the same and every file the run lowered has the
// same content. A file the run did not lower may change as long as it still cannot matter (it
// is readable, passes the input checks and the lexical pre-scan still says no): such a file
// cannot have reached any result, so the results stay those of the new tree. Any change to a
// lowered file, callee or caller, reruns the analysis. A run that lowered C++ files also records
// the project headers their units included and the compile databases their flags came from: a
// change to any of them reruns it (system headers and the CUDA toolkit are not recorded; the
// toolkit's path is in the key).
//
// A file whose stat fields (size, modification and change time, inode) are those recorded is
// taken as unchanged without reading it; one modified less than two seconds before its entry
// was written is always re-read (its time stamp cannot tell a later edit apart).
//
// Entries are written atomically, carry a checksum of their payload, and are ignored when
// corrupt, truncated, of another version or of another key: never an error, never a result
// they do not prove. The directory is kept under a size bound (oldest entries go first).
//
// File names are bytes: a path (or a message, or the key) that is not UTF-8 is stored as
// {"bytes": "<hex>"} instead of a JSON string (analyzer/io/json_bytes.h), so it reads back exactly.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/engine/engine.h"

namespace graphsafe {

// What the run did with one file, for the entry.
struct CachedFileState {
  std::string path;
  bool accepted = false;           // read and passed the input checks (else it gave a notice)
  bool lowered = false;            // parsed into the model
  std::uint64_t content_hash = 0;  // of the text analyzed; 0 when not accepted
};

class ResultCache {
 public:
  // The first line of a run entry; raised when the entry's shape changes.
  static constexpr const char* kEntryMagic = "graphsafe-result-cache 2";

  // `directory` is created on first store. `key` is the run key material (runCacheKey()).
  ResultCache(std::string directory, std::string key);

  // Says whether a changed file the cached run did not lower still cannot matter.
  using IrrelevanceTest = std::function<bool(const SourceFile& file)>;

  // The cached result of a run over exactly `paths`, or nullopt. An entry that is reused after
  // re-reading changed files is rewritten with their new state.
  std::optional<RunResult> load(const std::vector<std::string>& paths,
                                const AnalysisSettings& settings,
                                const IrrelevanceTest& still_irrelevant);

  // Records a run's result. `files` are in the order of the run's paths; `dependencies` are the
  // other files the result depends on (headers C++ units included, compile databases), checked
  // like lowered files on load. Failures (read-only directory, full disk) are silent: the cache
  // is an optimization.
  void store(const std::vector<CachedFileState>& files, const RunResult& result,
             const std::vector<std::string>& dependencies = {});

  // The entry file this cache reads and writes.
  const std::string& entryPath() const { return entry_path_; }

 private:
  std::string directory_;
  std::string key_;
  std::string entry_path_;
  std::int64_t started_ns_;  // when this run started: files modified since are racy
};

// The run key material of an engine run: version and build, configuration, environment,
// working directory, paths.
std::string runCacheKey(const EngineOptions& options);

// The part of it that the frontends' output depends on: the settings and the environment
// variables the frontends read (the lowering cache's key, lowering_cache.h).
std::string analysisSettingsKey(const AnalysisSettings& settings);

// Bound on the cache directory's size: entries beyond it are removed, least recently used first.
constexpr std::uint64_t kResultCacheMaxBytes = std::uint64_t{64} << 20;

// Removes the least recently used entries of `directory` while they take more than `max_bytes`.
void pruneResultCache(const std::string& directory, std::uint64_t max_bytes);

}  // namespace graphsafe
