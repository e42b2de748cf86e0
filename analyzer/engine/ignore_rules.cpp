#include "analyzer/engine/ignore_rules.h"

#include <algorithm>
#include <unordered_set>

namespace graphsafe {

namespace {

std::vector<std::string_view> splitPath(std::string_view path) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > start) parts.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

// Matches a `[...]` class starting at pattern[at] == '['. Sets `next` past the closing ']'.
// Returns false with next == at when the class is unterminated (the '[' is then literal).
bool matchClass(std::string_view pattern, std::size_t at, char c, std::size_t& next,
                bool& matched) {
  std::size_t i = at + 1;
  bool negate = false;
  if (i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^')) {
    negate = true;
    ++i;
  }
  bool found = false;
  bool first = true;
  while (i < pattern.size() && (first || pattern[i] != ']')) {
    first = false;
    char low = pattern[i];
    if (low == '\\' && i + 1 < pattern.size()) low = pattern[++i];
    ++i;
    char high = low;
    if (i + 1 < pattern.size() && pattern[i] == '-' && pattern[i + 1] != ']') {
      high = pattern[i + 1];
      i += 2;
      if (high == '\\' && i < pattern.size()) high = pattern[i++];
    }
    if (static_cast<unsigned char>(c) >= static_cast<unsigned char>(low) &&
        static_cast<unsigned char>(c) <= static_cast<unsigned char>(high)) {
      found = true;
    }
  }
  if (i >= pattern.size()) {
    next = at;
    return false;
  }
  next = i + 1;
  matched = found != negate;
  return true;
}

// Segment lists: "**" matches any number of whole segments; a trailing "**" at least one
// (`dir/**` is everything inside dir, not dir itself). Dynamic programming, no recursion.
bool matchSegments(const std::vector<std::string>& pattern,
                   const std::vector<std::string_view>& path) {
  const std::size_t n = pattern.size();
  const std::size_t m = path.size();
  // reach[j]: pattern[0..i) can match path[0..j).
  std::vector<char> reach(m + 1, 0);
  reach[0] = 1;
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<char> next(m + 1, 0);
    if (pattern[i] == "**") {
      bool trailing = i + 1 == n;
      bool any = false;
      for (std::size_t j = 0; j <= m; ++j) {
        if (!trailing && reach[j]) any = true;
        next[j] = any ? 1 : 0;
        if (trailing && reach[j]) any = true;  // takes effect from j + 1: at least one segment
      }
    } else {
      for (std::size_t j = 0; j < m; ++j) {
        if (reach[j] && globMatchSegment(pattern[i], path[j])) next[j + 1] = 1;
      }
    }
    reach.swap(next);
  }
  return reach[m] != 0;
}

}  // namespace

bool globMatchSegment(std::string_view pattern, std::string_view text) {
  // Classic wildcard matching that backtracks only to the last `*`: linear in practice.
  std::size_t p = 0;
  std::size_t t = 0;
  std::size_t star_p = std::string_view::npos;
  std::size_t star_t = 0;
  while (t < text.size()) {
    bool advanced = false;
    if (p < pattern.size()) {
      char pc = pattern[p];
      if (pc == '*') {
        while (p < pattern.size() && pattern[p] == '*') ++p;
        star_p = p;
        star_t = t;
        continue;
      }
      if (pc == '?') {
        ++p;
        ++t;
        advanced = true;
      } else if (pc == '[') {
        std::size_t next = p;
        bool matched = false;
        if (matchClass(pattern, p, text[t], next, matched)) {
          if (matched) {
            p = next;
            ++t;
            advanced = true;
          }
        } else if (text[t] == '[') {
          ++p;
          ++t;
          advanced = true;
        }
      } else {
        if (pc == '\\' && p + 1 < pattern.size()) pc = pattern[p + 1];
        if (pc == text[t]) {
          p += pattern[p] == '\\' && p + 1 < pattern.size() ? 2 : 1;
          ++t;
          advanced = true;
        }
      }
    }
    if (advanced) continue;
    if (star_p == std::string_view::npos) return false;
    p = star_p;
    t = ++star_t;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

IgnoreRules IgnoreRules::parse(std::string_view text, std::string base) {
  IgnoreRules rules;
  rules.base_ = std::move(base);
  // Repeated lines count once, at their last place: the last matching pattern decides, so an
  // earlier copy never changes a verdict.
  std::vector<std::string_view> lines;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  std::vector<bool> repeated(lines.size(), false);
  std::unordered_set<std::string_view> later;
  for (std::size_t i = lines.size(); i-- > 0;) repeated[i] = !later.insert(lines[i]).second;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (repeated[i]) continue;
    std::string_view line = lines[i];
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    // Trailing spaces are dropped unless escaped.
    while (!line.empty() && line.back() == ' ' &&
           !(line.size() >= 2 && line[line.size() - 2] == '\\')) {
      line.remove_suffix(1);
    }
    if (line.empty() || line.front() == '#') continue;

    Pattern pattern;
    if (line.front() == '!') {
      pattern.negated = true;
      line.remove_prefix(1);
    } else if (line.size() >= 2 && line[0] == '\\' && (line[1] == '!' || line[1] == '#')) {
      line.remove_prefix(1);
    }
    if (!line.empty() && line.back() == '/') {
      pattern.dir_only = true;
      while (!line.empty() && line.back() == '/') line.remove_suffix(1);
    }
    if (line.empty()) continue;
    std::size_t slash = line.find('/');
    pattern.anchored = slash != std::string_view::npos;
    for (std::string_view part : splitPath(line)) pattern.segments.emplace_back(part);
    if (pattern.segments.empty()) continue;
    // Any run of stars forming a whole segment is `**`.
    for (std::string& segment : pattern.segments) {
      if (segment.size() >= 2 && segment.find_first_not_of('*') == std::string::npos) {
        segment = "**";
      }
    }
    if (!pattern.anchored) pattern.segments.insert(pattern.segments.begin(), "**");
    rules.patterns_.push_back(std::move(pattern));
    rules.index(static_cast<std::uint32_t>(rules.patterns_.size() - 1));
  }
  // What one path may be matched against one by one: the patterns no lookup finds, or the
  // largest list one lookup finds.
  rules.globs_ = rules.wildcards_.size();
  for (const Index* index : {&rules.by_name_, &rules.by_literal_}) {
    for (const auto& [key, list] : *index) rules.globs_ = std::max(rules.globs_, list.size());
  }
  if (rules.globs_ > kMaxGlobPatterns) {
    IgnoreRules none;
    none.base_ = std::move(rules.base_);
    none.globs_ = rules.globs_;
    none.too_many_globs_ = true;
    return none;
  }
  return rules;
}

namespace {

bool literal(std::string_view segment) {
  return segment.find_first_of("*?[\\") == std::string_view::npos;
}

std::string joined(const std::vector<std::string>& segments, std::size_t from) {
  std::string path;
  for (std::size_t i = from; i < segments.size(); ++i) {
    if (i > from) path += '/';
    path += segments[i];
  }
  return path;
}

// The longest run of characters a name must contain to match a glob segment: the text between
// its wildcards (`*`, `?`, a `[...]` class), escapes resolved.
std::string longestLiteralRun(std::string_view segment) {
  std::string best;
  std::string run;
  auto cut = [&] {
    if (run.size() > best.size()) best = run;
    run.clear();
  };
  for (std::size_t i = 0; i < segment.size(); ++i) {
    const char c = segment[i];
    if (c == '\\' && i + 1 < segment.size()) {
      run += segment[++i];
    } else if (c == '*' || c == '?') {
      cut();
    } else if (c == '[') {
      // A class ends at the first `]` after its first character (after `!` or `^`, which
      // negate it); unterminated, `[` is literal.
      std::size_t first = i + 1;
      if (first < segment.size() && (segment[first] == '!' || segment[first] == '^')) ++first;
      std::size_t close = segment.find(']', first + 1);
      if (close == std::string_view::npos) {
        run += c;
      } else {
        cut();
        i = close;
      }
    } else {
      run += c;
    }
  }
  cut();
  return best;
}

}  // namespace

void IgnoreRules::index(std::uint32_t at) {
  const Pattern& pattern = patterns_[at];
  const auto& segments = pattern.segments;
  const std::string& last = segments.back();
  const bool all_literal = std::all_of(segments.begin(), segments.end(), [](const std::string& s) {
    return s != "**" && literal(s);
  });
  if (pattern.anchored && all_literal) {
    by_path_[joined(segments, 0)].push_back(at);
  } else if (last != "**" && literal(last)) {
    by_name_[last].push_back(at);
  } else if (std::string run = longestLiteralRun(last); !run.empty()) {
    auto length = std::lower_bound(literal_lengths_.begin(), literal_lengths_.end(), run.size());
    if (length == literal_lengths_.end() || *length != run.size()) {
      literal_lengths_.insert(length, run.size());
    }
    by_literal_[std::move(run)].push_back(at);
  } else {
    wildcards_.push_back(at);
  }
}

IgnoreRules::Verdict IgnoreRules::match(std::string_view relative, bool is_dir,
                                        bool basename_only) const {
  if (patterns_.empty()) return Verdict::kNone;
  std::vector<std::string_view> path = splitPath(relative);
  if (path.empty()) return Verdict::kNone;
  auto applies = [&](const Pattern& pattern) {
    return !(pattern.dir_only && !is_dir) && !(basename_only && pattern.anchored);
  };
  // The last pattern of an index list (file order) that applies and matches, or -1; only
  // patterns after the best one so far can change the verdict.
  std::int64_t best = -1;
  auto consider = [&](const Index& index, const std::string& key, bool exact) {
    auto found = index.find(key);
    if (found == index.end()) return;
    const std::vector<std::uint32_t>& indexes = found->second;
    for (auto it = indexes.rbegin(); it != indexes.rend() && *it > best; ++it) {
      const Pattern& pattern = patterns_[*it];
      if (applies(pattern) && (exact || matchSegments(pattern.segments, path))) {
        best = *it;
        return;
      }
    }
  };
  const std::string name(path.back());
  if (!basename_only) {
    std::string whole;
    for (std::size_t i = 0; i < path.size(); ++i) {
      if (i > 0) whole += '/';
      whole += path[i];
    }
    consider(by_path_, whole, /*exact=*/true);
  }
  consider(by_name_, name, /*exact=*/false);
  // Every substring of the name as long as some key: a few hundred lookups at most.
  for (std::size_t length : literal_lengths_) {
    if (length > name.size()) break;
    for (std::size_t start = 0; start + length <= name.size(); ++start) {
      consider(by_literal_, name.substr(start, length), /*exact=*/false);
    }
  }
  for (auto it = wildcards_.rbegin(); it != wildcards_.rend() && *it > best; ++it) {
    const Pattern& pattern = patterns_[*it];
    if (applies(pattern) && matchSegments(pattern.segments, path)) {
      best = *it;
      break;
    }
  }
  if (best < 0) return Verdict::kNone;
  return patterns_[static_cast<std::size_t>(best)].negated ? Verdict::kInclude : Verdict::kIgnore;
}

}  // namespace graphsafe
