#pragma once

#include <atomic>
#include <cstddef>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/diagnostics/diagnostic.h"
#include "analyzer/engine/analysis_settings.h"
#include "analyzer/model/capture_model.h"

namespace graphsafe {

// --select / --ignore: rule IDs or prefixes ("GS4" = the family). Ignore wins over select;
// an empty select means every rule.
struct RuleSelection {
  std::vector<std::string> select;
  std::vector<std::string> ignore;
  bool enabled(std::string_view rule_id) const;
};

// Findings of `codes` (rule IDs or prefixes) are dropped in files matching `pattern`, a
// gitignore-style glob relative to `base` (the configuration's directory; empty = the current
// directory). A leading `!` negates: the codes are dropped in files NOT matching.
struct PerFileIgnore {
  std::string pattern;
  std::vector<std::string> codes;
  std::string base;
  friend bool operator==(const PerFileIgnore&, const PerFileIgnore&) = default;
};

// How far a run is, for a progress line: `total` files, `done` of them through the frontends.
// Written by the run's threads, read by whoever shows it.
struct RunProgress {
  std::atomic<std::size_t> done{0};
  std::atomic<std::size_t> total{0};
};

// The rule ID of the findings that report a suppression comment suppressing nothing (Ruff's
// RUF100); not a catalog rule: it is reported only when asked for.
inline constexpr const char* kUnusedSuppressionId = "unused-suppression";

class LoweringCache;

// Thrown by a run whose EngineOptions::cancelled was set: it stopped between two files.
struct RunCancelled : std::exception {
  const char* what() const noexcept override { return "the analysis was cancelled"; }
};

struct EngineOptions {
  std::vector<std::string> paths;      // files or directories; default "."
  unsigned jobs = 0;                   // 0 = one per core
  RuleSelection selection;
  AnalysisSettings settings;
  std::vector<std::string> exclude;    // gitignore-style patterns, on top of .gitignore
  // --force-exclude: `exclude` applies to the paths named in `paths` too (file_walker.h).
  bool force_exclude = false;
  std::vector<PerFileIgnore> per_file_ignores;
  // Rule ID or prefix -> severity reported; the longest matching prefix wins.
  std::map<std::string, Severity> severity_overrides;
  // The cache directory; empty = no cache. runAnalysis keeps its result there (result_cache.h);
  // every run keeps its C++ units' models there (unit_cache.h).
  std::string cache_dir;
  // Fill RunResult::regions (--show-regions, the JSON output).
  bool report_regions = false;
  // Report each code of a suppression comment that suppressed no finding, as a warning of
  // kUnusedSuppressionId, when a rule it names ran (--report-unused-suppressions). Such a run
  // neither reads nor writes the result cache.
  bool report_unused_suppressions = false;
  // Counted as the run goes, when set (the CLI's progress line).
  RunProgress* progress = nullptr;
  // Lowered files kept from earlier runs and for later ones (lowering_cache.h), when set: the
  // language server's, which analyzes the same workspace after every edit.
  LoweringCache* lowering_cache = nullptr;
  // Looked at between files, when set: once it is true the run throws RunCancelled.
  const std::atomic<bool>* cancelled = nullptr;
};

// A call under capture that the analysis could not follow, and why.
struct UnresolvedCall {
  SourceFilePtr file;
  SourceRange range;
  std::string text;    // "self.model(ids)"
  std::string reason;  // "attribute `model` of `Runner` has no known value"
};

// One capture site and what its captured work reaches: how a user (and this project) measures
// what the analysis sees.
struct RegionSummary {
  SourceFilePtr file;
  SourceRange site;
  std::string kind;      // "graph context", "capture_begin/capture_end", "graphed callable", ...
  std::string function;  // the function holding the capture, "module.Class.method"
  std::vector<std::string> reaches;  // functions its captured work runs, sorted
  std::vector<UnresolvedCall> unresolved;
};

struct RunResult {
  std::vector<Diagnostic> diagnostics;  // sorted by path, position, rule; suppressions applied
  std::vector<Notice> notices;          // input problems (does not parse, not UTF-8, ...)
  std::size_t files_analyzed = 0;
  // Files not analyzed because the frontend their language needs could not be loaded (a C++
  // file without libgraphsafe_cuda.so), sorted; not counted in files_analyzed. A run that skips
  // them is never cached.
  std::vector<std::string> skipped_files;
  std::string skipped_reason;  // what is missing and where it was looked for
  std::size_t suppressed = 0;
  std::vector<RegionSummary> regions;  // when EngineOptions::report_regions; sorted by site
};

// Walks the paths, analyzes every Python (and, when built in, C++) file, runs every enabled check.
RunResult runAnalysis(const EngineOptions& options);

// Same, for sources already in memory (LSP buffers, tests).
RunResult analyzeSources(const std::vector<SourceFilePtr>& sources, const EngineOptions& options);

class ProgramModel;

// The program model of every Python (and C++) file under the paths, each one lowered whether
// or not a capture reaches it: what `graphsafe callgraph` prints. No checks run.
std::unique_ptr<ProgramModel> buildProgram(const EngineOptions& options, std::vector<Notice>& notices);

}  // namespace graphsafe
