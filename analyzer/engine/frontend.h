#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

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
  // Cheap lexical scan: the dotted names of the modules the file imports (relative imports
  // made absolute), and of the packages on the way to them. Files a capture's file imports
  // are lowered with it, so that what it calls across files is there to be typed.
  virtual std::vector<std::string> importedModules(const SourceFile& /*file*/) const {
    return {};
  }
  virtual FileModel analyze(const SourceFilePtr& source, const AnalysisSettings& settings) const = 0;
  // What analyze() would load that other files share (a compile database), loaded ahead in the
  // calling process: a frontend run in a child process per file (isolated_frontend.h) calls
  // this in the parent before it forks, so that every child inherits it instead of loading it.
  virtual void prepare(const SourceFile& /*file*/, const AnalysisSettings& /*settings*/) const {}
};

std::unique_ptr<Frontend> makePythonFrontend();

}  // namespace graphsafe
