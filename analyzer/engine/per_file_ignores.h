#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analyzer/engine/engine.h"
#include "analyzer/engine/ignore_rules.h"

namespace graphsafe {

// The configuration's per-file-ignores, compiled once per run. Patterns use the same
// gitignore-style syntax as `exclude`: a pattern without a slash matches a file or directory
// name at any depth, one with a slash is anchored to its base directory, a trailing `/` matches
// directories (and so every file inside them).
class PerFileIgnores {
 public:
  explicit PerFileIgnores(const std::vector<PerFileIgnore>& entries);

  // Is a finding of `rule_id` in the file at `path` (as the engine names it) ignored?
  bool ignores(const std::string& path, std::string_view rule_id) const;
  bool empty() const { return entries_.empty(); }

 private:
  struct Entry {
    IgnoreRules rules;
    bool negated = false;
    std::vector<std::string> codes;
    std::string base;  // absolute, lexically normal
  };
  static bool matches(const Entry& entry, const std::string& absolute);

  std::vector<Entry> entries_;
};

}  // namespace graphsafe
