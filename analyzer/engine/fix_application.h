#pragma once

// `--fix` and `--diff`: the fixes findings carry (only where they cannot change what the code
// means, such as GS203's `.clone()`), applied to the files or shown as a unified diff. A file is
// written only if it is still the text that was analyzed, through the same atomic write as every
// output; edits that overlap one already taken are left for the next run, as Ruff does.

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/engine/engine.h"

namespace graphsafe {

struct FileFix {
  SourceFilePtr file;
  std::vector<TextEdit> edits;           // by position, none overlapping
  std::vector<std::size_t> diagnostics;  // indexes in RunResult::diagnostics whose fix is in
};

// The fixes of `result`'s findings, per file, in path order.
std::vector<FileFix> collectFixes(const RunResult& result);

// `text` with `edits` (by position, none overlapping) applied.
std::string applyEdits(std::string_view text, const std::vector<TextEdit>& edits);

// A unified diff (`--- a/path`, `+++ b/path` for a relative path, hunks with three lines of
// context) of the edits.
std::string unifiedDiff(const std::string& path, std::string_view text,
                        const std::vector<TextEdit>& edits);

// Writes each file's fixes; the findings fixed are removed from `result`. Files changed since
// they were analyzed, and files reached through a symbolic link out of the analyzed trees
// (`trees`, see LinkBoundary), are left alone with a message on `err`. Returns the number of
// findings fixed; `files` is set to the number of files written.
std::size_t writeFixes(RunResult& result, std::ostream& err, std::size_t& files,
                       const std::vector<std::string>& trees = {});

}  // namespace graphsafe
