#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analyzer/model/capture_model.h"

namespace graphsafe {

// Suppression comments of one file:
//   Python: `# graphsafe: ignore[GS401]`, `# graphsafe: ignore` (all rules), `# noqa: GS401`,
//           file-level `# graphsafe: ignore-file[GS401]`
//   C++:    `// graphsafe: ignore[GS301]`, `// NOLINT(GS301)`, `// NOLINTNEXTLINE(GS301)`,
//           `// NOLINTBEGIN(GS301)` ... `// NOLINTEND(GS301)` (every line from the one to the other)
// IDs may be prefixes (`GS4`). A bare `# noqa` or `NOLINT...` (no codes) is not ours and
// suppresses nothing. An unmatched NOLINTBEGIN or NOLINTEND is a notice, as clang-tidy reports it.
class Suppressions {
 public:
  // Parses the comments; unknown rule IDs and unmatched NOLINTBEGIN/NOLINTEND become notices.
  static Suppressions parse(const FileModel& file, std::vector<Notice>& notices);

  // Is a finding of `rule_id` reported at 0-based `line` suppressed?
  bool suppresses(std::string_view rule_id, std::uint32_t line) const;
  // The same, and remembers which comment's codes were used (for unusedSuppressions).
  bool suppressAndMark(std::string_view rule_id, std::uint32_t line);

  // A code of a suppression comment that suppressed nothing in this run.
  struct Unused {
    std::uint32_t line = 0;    // of the comment
    std::uint32_t column = 0;  // of the comment marker
    std::string code;          // "" for a comment without codes (every rule)
  };
  // The codes that suppressed nothing, by line. `could_fire(code)` says whether a rule the code
  // names ("" = any rule) ran in this run: a code for rules that did not run is never unused
  // (a run with those rules may need it).
  template <typename CouldFire>
  std::vector<Unused> unused(CouldFire could_fire) const {
    std::vector<Unused> found;
    for (const Entry& entry : entries_) {
      if (entry.codes.empty()) {
        if (!entry.used_any && could_fire(std::string_view())) {
          found.push_back({entry.comment_line, entry.column, ""});
        }
        continue;
      }
      for (std::size_t i = 0; i < entry.codes.size(); ++i) {
        if (!entry.used[i] && could_fire(std::string_view(entry.codes[i]))) {
          found.push_back({entry.comment_line, entry.column, entry.codes[i]});
        }
      }
    }
    return found;
  }

 private:
  struct Entry {
    std::uint32_t line = 0;      // the first line suppressed
    std::uint32_t last_line = 0;  // the last (NOLINTBEGIN ... NOLINTEND); == line otherwise
    bool whole_file = false;
    std::vector<std::string> codes;  // empty = every rule
    std::uint32_t comment_line = 0;
    std::uint32_t column = 0;
    std::vector<bool> used;  // per code
    bool used_any = false;
  };
  // The entry's code that suppresses `rule_id` at `line`: its index (0 for an entry without
  // codes), or -1.
  static long matchingCode(const Entry& entry, std::string_view rule_id, std::uint32_t line);
  std::vector<Entry> entries_;
};

// Parses the rule codes of one comment; exposed for tests and the LSP quick fixes.
// Returns false when the comment is not a suppression at all.
struct ParsedSuppression {
  bool whole_file = false;
  bool next_line = false;           // NOLINTNEXTLINE
  bool begin = false;               // NOLINTBEGIN: suppresses up to the matching NOLINTEND
  bool end = false;                 // NOLINTEND
  std::vector<std::string> codes;   // empty = every rule
};
bool parseSuppressionComment(std::string_view comment, ParsedSuppression& out);

}  // namespace graphsafe
