#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace graphsafe {

// The patterns of one .gitignore file (or of the `exclude` option), with gitignore semantics:
// comments, blank lines, `!` negation, a trailing `/` for directories only, a leading or inner
// `/` anchoring the pattern to the file's directory, `*`, `?`, `**` and `[...]` classes.
class IgnoreRules {
 public:
  enum class Verdict { kNone, kIgnore, kInclude };

  IgnoreRules() = default;
  // `base` is the directory the patterns are relative to (kept as given, for the caller).
  static IgnoreRules parse(std::string_view text, std::string base);

  // The verdict of the last pattern that matches `relative` ('/'-separated, relative to the
  // base), or kNone. With `basename_only`, `relative` is a bare name seen from outside the
  // base: only unanchored patterns can match it.
  Verdict match(std::string_view relative, bool is_dir, bool basename_only = false) const;

  const std::string& base() const { return base_; }
  bool empty() const { return patterns_.empty(); }

 private:
  struct Pattern {
    std::vector<std::string> segments;  // "**" is a segment of its own
    bool negated = false;
    bool dir_only = false;
    bool anchored = false;
  };
  std::string base_;
  std::vector<Pattern> patterns_;
};

// One path segment against one glob segment: `*`, `?`, `[...]`, `\` escapes; never crosses '/'.
bool globMatchSegment(std::string_view pattern, std::string_view text);

}  // namespace graphsafe
