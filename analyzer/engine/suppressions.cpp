#include "analyzer/engine/suppressions.h"

#include <algorithm>
#include <cctype>
#include <iterator>

#include "analyzer/catalog/rule_catalog.h"

namespace graphsafe {

namespace {

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}
bool isDigit(char c) {
  return c >= '0' && c <= '9';
}
bool isUpper(char c) {
  return c >= 'A' && c <= 'Z';
}

std::string_view trimLeft(std::string_view text) {
  while (!text.empty() && isSpace(text.front())) text.remove_prefix(1);
  return text;
}

// The comment's text without its marker: `# x`, `// x`, `/* x */`.
std::string_view stripMarker(std::string_view comment) {
  if (comment.starts_with("/*")) {
    comment.remove_prefix(2);
    if (comment.ends_with("*/")) comment.remove_suffix(2);
  } else {
    while (!comment.empty() && (comment.front() == '#' || comment.front() == '/')) {
      comment.remove_prefix(1);
    }
  }
  return comment;
}

// Position of `word` in `text` where it stands as a word of its own, or npos.
std::size_t findWord(std::string_view text, std::string_view word, bool ignore_case) {
  auto equal = [&](std::size_t at) {
    for (std::size_t k = 0; k < word.size(); ++k) {
      char a = text[at + k];
      char b = word[k];
      if (ignore_case) {
        a = static_cast<char>(std::tolower(static_cast<unsigned char>(a)));
        b = static_cast<char>(std::tolower(static_cast<unsigned char>(b)));
      }
      if (a != b) return false;
    }
    return true;
  };
  for (std::size_t at = 0; at + word.size() <= text.size(); ++at) {
    bool starts_word = at == 0 || !std::isalnum(static_cast<unsigned char>(text[at - 1]));
    if (starts_word && equal(at)) return at;
  }
  return std::string_view::npos;
}

// Splits a code list on commas and whitespace.
std::vector<std::string_view> splitCodes(std::string_view list) {
  std::vector<std::string_view> codes;
  std::size_t i = 0;
  while (i < list.size()) {
    while (i < list.size() && (isSpace(list[i]) || list[i] == ',')) ++i;
    std::size_t start = i;
    while (i < list.size() && !isSpace(list[i]) && list[i] != ',') ++i;
    if (i > start) codes.push_back(list.substr(start, i - start));
  }
  return codes;
}

bool looksLikeOurCode(std::string_view code) {
  return code.size() > 2 && code.starts_with("GS") && isDigit(code[2]);
}

// `graphsafe: ignore[...]` / `graphsafe: ignore-file[...]`: every listed code is meant for us.
bool parseOwnDirective(std::string_view text, ParsedSuppression& out) {
  std::size_t at = findWord(text, "graphsafe", /*ignore_case=*/false);
  if (at == std::string_view::npos) return false;
  std::string_view rest = trimLeft(text.substr(at + 9));
  if (!rest.starts_with(':')) return false;
  rest = trimLeft(rest.substr(1));
  bool whole_file = false;
  if (rest.starts_with("ignore-file")) {
    whole_file = true;
    rest.remove_prefix(11);
  } else if (rest.starts_with("ignore")) {
    rest.remove_prefix(6);
  } else {
    return false;
  }
  if (!rest.empty() && (std::isalnum(static_cast<unsigned char>(rest.front())) ||
                        rest.front() == '-' || rest.front() == '_')) {
    return false;  // `ignored`, `ignore-next`: not a directive of ours
  }
  out = {};
  out.whole_file = whole_file;
  rest = trimLeft(rest);
  if (rest.starts_with('[')) {
    std::size_t close = rest.find(']');
    std::string_view list = rest.substr(1, close == std::string_view::npos ? rest.npos : close - 1);
    for (std::string_view code : splitCodes(list)) out.codes.emplace_back(code);
  }
  return true;
}

// `noqa: GS401, E501`: shared with other tools, so only codes that look like ours count and a
// bare `noqa` is theirs.
bool parseNoqa(std::string_view text, ParsedSuppression& out) {
  std::size_t at = findWord(text, "noqa", /*ignore_case=*/true);
  if (at == std::string_view::npos) return false;
  std::string_view rest = text.substr(at + 4);
  if (!rest.starts_with(':')) return false;
  rest = trimLeft(rest.substr(1));
  std::vector<std::string> ours;
  // Codes run until the first word that is not a code (`# noqa: E501 long url`).
  for (std::string_view code : splitCodes(rest)) {
    std::size_t letters = 0;
    while (letters < code.size() && isUpper(code[letters])) ++letters;
    bool is_code =
        letters > 0 && letters < code.size() &&
        std::all_of(code.begin() + static_cast<std::ptrdiff_t>(letters), code.end(), isDigit);
    if (!is_code) break;
    if (looksLikeOurCode(code)) ours.emplace_back(code);
  }
  if (ours.empty()) return false;
  out = {};
  out.codes = std::move(ours);
  return true;
}

// `NOLINT(GS301)`, `NOLINTNEXTLINE(GS301, bugprone-foo)`, `NOLINTBEGIN(GS301)`,
// `NOLINTEND(GS301)`: clang-tidy's names are not ours.
bool parseNolint(std::string_view text, ParsedSuppression& out) {
  std::size_t at = findWord(text, "NOLINT", /*ignore_case=*/false);
  if (at == std::string_view::npos) return false;
  std::string_view rest = text.substr(at + 6);
  bool next_line = false;
  bool begin = false;
  bool end = false;
  if (rest.starts_with("NEXTLINE")) {
    next_line = true;
    rest.remove_prefix(8);
  } else if (rest.starts_with("BEGIN")) {
    begin = true;
    rest.remove_prefix(5);
  } else if (rest.starts_with("END")) {
    end = true;
    rest.remove_prefix(3);
  }
  // A bare NOLINT (NOLINTNEXTLINE, NOLINTBEGIN, ...) is clang-tidy's for its own checks.
  if (!rest.starts_with('(')) return false;
  std::size_t close = rest.find(')');
  std::string_view list = rest.substr(1, close == std::string_view::npos ? rest.npos : close - 1);
  std::vector<std::string> ours;
  for (std::string_view code : splitCodes(list)) {
    if (code.ends_with('*')) code.remove_suffix(1);  // clang-tidy glob `GS4*` = prefix GS4
    if (code.starts_with("GS")) ours.emplace_back(code);
  }
  if (ours.empty()) return false;
  out = {};
  out.next_line = next_line;
  out.begin = begin;
  out.end = end;
  out.codes = std::move(ours);
  return true;
}

bool validCode(const std::string& code) {
  if (!looksLikeOurCode(code)) return false;
  if (!std::all_of(code.begin() + 2, code.end(), isDigit)) return false;
  const auto& rules = RuleCatalog::instance().rules();
  return std::any_of(rules.begin(), rules.end(),
                     [&](const RuleInfo& rule) { return rule.id.starts_with(code); });
}

}  // namespace

bool parseSuppressionComment(std::string_view comment, ParsedSuppression& out) {
  std::string_view text = stripMarker(comment);
  return parseOwnDirective(text, out) || parseNoqa(text, out) || parseNolint(text, out);
}

Suppressions Suppressions::parse(const FileModel& file, std::vector<Notice>& notices) {
  Suppressions result;
  const std::string path = file.source ? file.source->path() : std::string();
  std::vector<const SourceComment*> comments;
  for (const SourceComment& comment : file.comments) comments.push_back(&comment);
  std::stable_sort(comments.begin(), comments.end(),
                   [](const SourceComment* a, const SourceComment* b) { return a->line < b->line; });
  // The NOLINTBEGIN comments not closed yet, innermost last: a NOLINTEND closes the innermost
  // one with the same codes, as clang-tidy pairs them.
  std::vector<Entry> open;
  auto unmatched = [&](std::uint32_t line, const char* message) {
    notices.push_back({path, static_cast<std::int32_t>(line), message});
  };
  for (const SourceComment* comment : comments) {
    ParsedSuppression parsed;
    if (!parseSuppressionComment(comment->text, parsed)) continue;
    Entry entry;
    entry.line = comment->line + (parsed.next_line ? 1 : 0);
    entry.last_line = entry.line;
    entry.comment_line = comment->line;
    entry.column = comment->column;
    entry.whole_file = parsed.whole_file;
    for (std::string& code : parsed.codes) {
      if (validCode(code)) {
        entry.codes.push_back(std::move(code));
      } else if (!parsed.end) {  // the NOLINTBEGIN said it already
        notices.push_back({path, static_cast<std::int32_t>(comment->line),
                           "unknown rule '" + code + "' in suppression comment"});
      }
    }
    // A comment whose every code is unknown suppresses nothing (not everything).
    if (!parsed.codes.empty() && entry.codes.empty()) continue;
    entry.used.assign(entry.codes.size(), false);
    if (parsed.begin) {
      open.push_back(std::move(entry));
      continue;
    }
    if (parsed.end) {
      auto same_codes = [&](const Entry& begin) {
        std::vector<std::string> a = begin.codes;
        std::vector<std::string> b = entry.codes;
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        return a == b;
      };
      auto match = std::find_if(open.rbegin(), open.rend(), same_codes);
      if (match == open.rend()) {
        unmatched(comment->line,
                  "unmatched NOLINTEND comment without a previous NOLINTBEGIN comment with the "
                  "same rules");
        continue;
      }
      Entry begin = std::move(*match);
      open.erase(std::next(match).base());
      begin.last_line = comment->line;
      result.entries_.push_back(std::move(begin));
      continue;
    }
    result.entries_.push_back(std::move(entry));
  }
  // An unmatched NOLINTBEGIN suppresses nothing: the end of the file is no NOLINTEND.
  for (const Entry& begin : open) {
    unmatched(begin.comment_line,
              "unmatched NOLINTBEGIN comment without a subsequent NOLINTEND comment with the same "
              "rules");
  }
  return result;
}

long Suppressions::matchingCode(const Entry& entry, std::string_view rule_id,
                                std::uint32_t line) {
  if (!entry.whole_file && (line < entry.line || line > entry.last_line)) return -1;
  if (entry.codes.empty()) return 0;
  for (std::size_t i = 0; i < entry.codes.size(); ++i) {
    if (rule_id.starts_with(entry.codes[i])) return static_cast<long>(i);
  }
  return -1;
}

bool Suppressions::suppresses(std::string_view rule_id, std::uint32_t line) const {
  return std::any_of(entries_.begin(), entries_.end(), [&](const Entry& entry) {
    return matchingCode(entry, rule_id, line) >= 0;
  });
}

bool Suppressions::suppressAndMark(std::string_view rule_id, std::uint32_t line) {
  bool suppressed = false;
  // Every comment that covers the finding is used by it, not only the first.
  for (Entry& entry : entries_) {
    long code = matchingCode(entry, rule_id, line);
    if (code < 0) continue;
    suppressed = true;
    entry.used_any = true;
    if (!entry.codes.empty()) entry.used[static_cast<std::size_t>(code)] = true;
  }
  return suppressed;
}

}  // namespace graphsafe
