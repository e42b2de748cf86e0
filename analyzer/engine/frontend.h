#pragma once

#include <memory>
#include <string_view>

#include "analyzer/model/capture_model.h"

namespace graphsafe {

struct AnalysisSettings;

// A language frontend: parses one file once and lowers it into the capture model.
// Implementations must be thread-safe across files (one analyze() per file, many at once)
// and must never throw on bad input: a file that cannot be analyzed gets notices and
// parse_failed = true.
class Frontend {
 public:
  virtual ~Frontend() = default;
  virtual Language language() const = 0;
  virtual std::string_view name() const = 0;
  // Cheap lexical test: can this file contain anything a rule looks at (a capture API, a
  // compile mode, a stream API)? Files that cannot are still indexed for cross-file calls.
  virtual bool mayMatter(std::string_view text) const = 0;
  virtual FileModel analyze(const SourceFilePtr& source, const AnalysisSettings& settings) const = 0;
};

std::unique_ptr<Frontend> makePythonFrontend();

}  // namespace graphsafe
