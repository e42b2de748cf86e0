#pragma once

// The workspace's files as the language server's analysis reads them from disk. The workspace
// is walked as `graphsafe check ROOT` walks it (.gitignore, `exclude`, VCS directories,
// virtualenvs, build trees), on every analysis, so that added and removed files count; a file
// whose stat stamp did not change since it was read is not read again and keeps its SourceFile,
// so that an unchanged workspace gives the analysis the very same inputs.

#include <map>
#include <string>
#include <vector>

#include "analyzer/engine/analysis_settings.h"
#include "analyzer/engine/lowering_cache.h"
#include "analyzer/io/file_stamp.h"
#include "analyzer/model/capture_model.h"

namespace graphsafe::lsp {

class WorkspaceFiles {
 public:
  // A workspace with more files than the lowering cache keeps is not walked (the walk itself
  // would cost what the editor is waiting for): its open documents are analyzed alone, as is a
  // workspace whose root is `/`.
  static constexpr std::size_t kMaxWorkspaceFiles = LoweringCache::kMaxFiles;

  // The analyzable files under `root`, in the walker's order; a path in `open` is given the
  // open document's text instead of the file's. Files that cannot be read (and walk problems)
  // become `notices`, as they would in `graphsafe check`.
  std::vector<SourceFilePtr> read(const std::string& root, const std::vector<std::string>& exclude,
                                  const AnalysisSettings& settings,
                                  const std::map<std::string, SourceFilePtr>& open,
                                  std::vector<Notice>& notices);

  // Files read from disk (not from a stamp), for tests.
  std::size_t reads() const { return reads_; }

 private:
  struct Entry {
    FileStamp stamp;
    std::int64_t read_ns = 0;
    SourceFilePtr source;         // null when it could not be read
    std::vector<Notice> notices;  // why not
  };
  std::map<std::string, Entry> entries_;  // by path, the files of the last walk
  std::string settings_key_;              // what the entries were read under
  std::size_t reads_ = 0;
};

}  // namespace graphsafe::lsp
