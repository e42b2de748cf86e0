#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analyzer/model/capture_model.h"

namespace graphsafe {

// Suppression comments of one file:
//   Python: `# graphsafe: ignore[GS401]`, `# graphsafe: ignore` (all rules), `# noqa: GS401`,
//           file-level `# graphsafe: ignore-file[GS401]`
//   C++:    `// graphsafe: ignore[GS301]`, `// NOLINT(GS301)`, `// NOLINTNEXTLINE(GS301)`
// IDs may be prefixes (`GS4`). A bare `# noqa` (no codes) is not ours and suppresses nothing.
class Suppressions {
 public:
  // Parses the comments; unknown rule IDs become notices.
  static Suppressions parse(const FileModel& file, std::vector<Notice>& notices);

  // Is a finding of `rule_id` reported at 0-based `line` suppressed?
  bool suppresses(std::string_view rule_id, std::uint32_t line) const;

 private:
  struct Entry {
    std::uint32_t line = 0;
    bool whole_file = false;
    std::vector<std::string> codes;  // empty = every rule
  };
  std::vector<Entry> entries_;
};

// Parses the rule codes of one comment; exposed for tests and the LSP quick fixes.
// Returns false when the comment is not a suppression at all.
struct ParsedSuppression {
  bool whole_file = false;
  bool next_line = false;           // NOLINTNEXTLINE
  std::vector<std::string> codes;   // empty = every rule
};
bool parseSuppressionComment(std::string_view comment, ParsedSuppression& out);

}  // namespace graphsafe
