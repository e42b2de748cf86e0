#include "analyzer/engine/per_file_ignores.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace graphsafe {

namespace fs = std::filesystem;

namespace {

std::string absoluteNormal(const std::string& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path.empty() ? fs::path(".") : fs::path(path), ec);
  if (ec) absolute = fs::path(path);
  std::string normal = absolute.lexically_normal().generic_string();
  while (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  return normal;
}

bool codeMatches(const std::vector<std::string>& codes, std::string_view rule_id) {
  return std::any_of(codes.begin(), codes.end(), [&](const std::string& code) {
    return !code.empty() && rule_id.starts_with(code);
  });
}

}  // namespace

PerFileIgnores::PerFileIgnores(const std::vector<PerFileIgnore>& entries) {
  for (const PerFileIgnore& given : entries) {
    std::string_view pattern = given.pattern;
    Entry entry;
    if (pattern.starts_with('!')) {
      entry.negated = true;
      pattern.remove_prefix(1);
    }
    if (pattern.empty() || given.codes.empty()) continue;
    entry.rules = IgnoreRules::parse(pattern, "");
    if (entry.rules.empty()) continue;
    entry.codes = given.codes;
    entry.base = absoluteNormal(given.base);
    entries_.push_back(std::move(entry));
  }
}

bool PerFileIgnores::matches(const Entry& entry, const std::string& absolute) {
  std::string relative = fs::path(absolute).lexically_relative(entry.base).generic_string();
  if (relative.empty() || relative == "." || relative.starts_with("../") || relative == "..") {
    // Outside the base directory only patterns without a slash can match, by name.
    std::string name = fs::path(absolute).filename().generic_string();
    return entry.rules.match(name, false, /*basename_only=*/true) == IgnoreRules::Verdict::kIgnore;
  }
  // A matching directory covers everything inside it, as in .gitignore.
  for (std::size_t slash = relative.find('/'); slash != std::string::npos;
       slash = relative.find('/', slash + 1)) {
    if (entry.rules.match(std::string_view(relative).substr(0, slash), true) ==
        IgnoreRules::Verdict::kIgnore) {
      return true;
    }
  }
  return entry.rules.match(relative, false) == IgnoreRules::Verdict::kIgnore;
}

bool PerFileIgnores::ignores(const std::string& path, std::string_view rule_id) const {
  if (entries_.empty()) return false;
  std::string absolute = absoluteNormal(path);
  for (const Entry& entry : entries_) {
    if (!codeMatches(entry.codes, rule_id)) continue;
    if (matches(entry, absolute) != entry.negated) return true;
  }
  return false;
}

}  // namespace graphsafe
