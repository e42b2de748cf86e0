#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace graphsafe {

// The patterns of one .gitignore file (or of the `exclude` option), with gitignore semantics:
// comments, blank lines, `!` negation, a trailing `/` for directories only, a leading or inner
// `/` anchoring the pattern to the file's directory, `*`, `?`, `**` and `[...]` classes.
class IgnoreRules {
 public:
  enum class Verdict { kNone, kIgnore, kInclude };

  // Patterns are found by what a path must contain (below); those with no literal text in
  // their last segment (`*`, `[a-z]?`) are tried one by one. A file with more of those than
  // this, or with more patterns behind one key of its index, is not applied (a notice says
  // so), so that an ignore file costs each path a bounded number of glob matches.
  static constexpr std::size_t kMaxGlobPatterns = 1000;

  IgnoreRules() = default;
  // `base` is the directory the patterns are relative to (kept as given, for the caller).
  // A pattern repeated in the file counts once (the last one decides anyway).
  static IgnoreRules parse(std::string_view text, std::string base);

  // The file held more than kMaxGlobPatterns patterns to glob-match for one path: none of it
  // applies. globPatterns() is that number.
  bool tooManyGlobs() const { return too_many_globs_; }
  std::size_t globPatterns() const { return globs_; }

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
  // A long generated .gitignore is not tried pattern by pattern: patterns are found through
  // what a path must contain to match them, and only those are tried. Each list holds pattern
  // indexes in file order, since the last pattern that matches decides.
  using Index = std::unordered_map<std::string, std::vector<std::uint32_t>>;
  void index(std::uint32_t at);
  std::string base_;
  std::size_t globs_ = 0;
  bool too_many_globs_ = false;
  std::vector<Pattern> patterns_;
  Index by_path_;       // no wildcard at all, anchored: the whole relative path
  Index by_name_;       // the last segment has no wildcard (`gen.py`, `**/x/gen.py`): that name
  // The last segment has wildcards and literal text (`*.gen12`, `gen_12_*`, `*x[0-9]`): its
  // longest literal run, which every name it matches contains.
  Index by_literal_;
  std::vector<std::size_t> literal_lengths_;  // of by_literal_'s keys, sorted, distinct
  std::vector<std::uint32_t> wildcards_;      // everything else (`*`, `[a-z]*`)
};

// One path segment against one glob segment: `*`, `?`, `[...]`, `\` escapes; never crosses '/'.
bool globMatchSegment(std::string_view pattern, std::string_view text);

}  // namespace graphsafe
