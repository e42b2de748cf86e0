#pragma once

#include <cstddef>
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

struct EngineOptions {
  std::vector<std::string> paths;      // files or directories; default "."
  unsigned jobs = 0;                   // 0 = one per core
  RuleSelection selection;
  AnalysisSettings settings;
  std::vector<std::string> exclude;    // gitignore-style patterns, on top of .gitignore
};

struct RunResult {
  std::vector<Diagnostic> diagnostics;  // sorted by path, position, rule; suppressions applied
  std::vector<Notice> notices;          // input problems (does not parse, not UTF-8, ...)
  std::size_t files_analyzed = 0;
  std::size_t suppressed = 0;
};

// Walks the paths, analyzes every Python (and, when built in, C++) file, runs every enabled check.
RunResult runAnalysis(const EngineOptions& options);

// Same, for sources already in memory (LSP buffers, tests).
RunResult analyzeSources(const std::vector<SourceFilePtr>& sources, const EngineOptions& options);

}  // namespace graphsafe
