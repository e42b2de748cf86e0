#include "analyzer/engine/ignore_rules.h"

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
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
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
  }
  return rules;
}

IgnoreRules::Verdict IgnoreRules::match(std::string_view relative, bool is_dir,
                                        bool basename_only) const {
  if (patterns_.empty()) return Verdict::kNone;
  std::vector<std::string_view> path = splitPath(relative);
  if (path.empty()) return Verdict::kNone;
  for (auto it = patterns_.rbegin(); it != patterns_.rend(); ++it) {
    if (it->dir_only && !is_dir) continue;
    if (basename_only && it->anchored) continue;
    if (matchSegments(it->segments, path)) {
      return it->negated ? Verdict::kInclude : Verdict::kIgnore;
    }
  }
  return Verdict::kNone;
}

}  // namespace graphsafe
