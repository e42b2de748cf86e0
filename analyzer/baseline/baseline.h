#pragma once

// A baseline: the findings a project already has, so that CI fails only on new ones
// (`--write-baseline FILE` records them, `--baseline FILE` hides them). A finding matches an
// entry by rule, path (relative to the baseline's directory) and a fingerprint of its line's
// text with whitespace removed, so moving code up or down keeps matching while editing the
// line makes it a new finding. Two identical lines are two entries: each entry hides one.
//
// A path that is not UTF-8 (a file name is bytes: `caf\xe9.py`) is written twice: "path" for
// people, with U+FFFD for the bytes JSON cannot hold, and "path_bytes", the exact bytes in hex,
// which loading prefers. UTF-8 paths have no "path_bytes", so the format (version 1) and older
// baselines are unchanged.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "analyzer/engine/engine.h"
#include "analyzer/io/atomic_write.h"

namespace graphsafe {

// 16 hex digits: FNV-1a (64 bits) of the rule ID, a NUL, and the finding's first line with
// all whitespace removed. The same on every platform.
std::string lineFingerprint(const Diagnostic& diagnostic);

// lineFingerprint() of many findings, each line hashed once per rule: thousands of findings on
// one long line (a minified file) cost one pass over it, not one each.
class LineFingerprints {
 public:
  std::uint64_t hash(const Diagnostic& diagnostic);
  std::string of(const Diagnostic& diagnostic);  // lineFingerprint()'s 16 hex digits

 private:
  std::map<std::tuple<const SourceFile*, std::uint32_t, std::string>, std::uint64_t> known_;
};

struct BaselineEntry {
  std::string rule;
  std::string path;         // relative to the baseline's directory, forward slashes
  std::string fingerprint;  // lineFingerprint()
  std::uint32_t line = 0;   // 1-based, for people reading the file; not used to match
  std::string message;      // likewise
  friend bool operator==(const BaselineEntry&, const BaselineEntry&) = default;
};

class Baseline {
 public:
  // The findings of `result`, with paths relative to the directory of `baseline_path`.
  static Baseline fromResult(const RunResult& result, const std::string& baseline_path);

  // Reads a baseline file. nullopt with a one-line `error` when it cannot be read or is not a
  // graphsafe baseline.
  static std::optional<Baseline> load(const std::string& path, std::string& error);

  // The file's text: JSON, entries sorted by path, rule and line.
  std::string serialize() const;

  // Writes the file atomically (a temporary file renamed over it, permissions kept).
  bool write(const std::string& path, std::string& error) const;
  // The same, refused when the file is no longer as `expected` recorded it (someone changed it
  // while the analysis ran); inside `boundary`'s trees no link is followed out (atomic_write.h).
  bool write(const std::string& path, const FileSnapshot& expected, std::string& error,
             const LinkBoundary& boundary = {}) const;

  // Removes the findings of `result` that the baseline holds and returns how many; `path` is
  // where the baseline lives (paths in it are relative to its directory).
  std::size_t filter(RunResult& result, const std::string& path) const;

  const std::vector<BaselineEntry>& entries() const { return entries_; }

 private:
  std::vector<BaselineEntry> entries_;
};

}  // namespace graphsafe
