#include "analyzer/output/output_common.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <system_error>

#include "analyzer/source/utf8.h"

namespace graphsafe {

namespace fs = std::filesystem;

Position oneBasedPosition(const SourceFile* file, SourcePoint point, ColumnUnit unit) {
  if (file == nullptr) return {point.line + 1, point.column + 1};
  std::uint32_t column =
      unit == ColumnUnit::kUtf16 ? file->utf16Column(point) : file->codePointColumn(point);
  return {point.line + 1, column + 1};
}

nlohmann::json rangeToJson(const SourceFile* file, const SourceRange& range, ColumnUnit unit) {
  Position start = oneBasedPosition(file, range.start, unit);
  Position end = oneBasedPosition(file, range.stop, unit);
  return {{"start", {{"line", start.line}, {"column", start.column}}},
          {"end", {{"line", end.line}, {"column", end.column}}}};
}

std::string currentDirectory() {
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  if (ec) return {};
  return cwd.lexically_normal().generic_string();
}

std::string absolutePathFrom(const std::string& path, const std::string& directory) {
  fs::path p(path);
  if (p.is_relative() && !directory.empty()) p = fs::path(directory) / p;
  std::string normal = p.lexically_normal().generic_string();
  while (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  return normal;
}

std::string pathInside(const std::string& path, const std::string& directory) {
  if (directory.empty()) return {};
  fs::path base(absolutePathFrom(".", directory));
  fs::path relative = fs::path(absolutePathFrom(path, directory)).lexically_relative(base);
  std::string text = relative.generic_string();
  if (text.empty() || text == "." || text == ".." || text.starts_with("../")) return {};
  return text;
}

Incompleteness incompleteness(const RunResult& result) {
  Incompleteness counts;
  std::set<std::string> files(result.skipped_files.begin(), result.skipped_files.end());
  for (const Notice& notice : result.notices) {
    if (!notice.incomplete) continue;
    ++counts.notices;
    if (notice.path.empty()) {
      ++counts.unnamed;
    } else {
      files.insert(notice.path);
    }
  }
  counts.files = files.size();
  return counts;
}

FindingCounts countFindings(const RunResult& result) {
  FindingCounts counts;
  std::set<std::string> files;
  for (const Diagnostic& diagnostic : result.diagnostics) {
    (diagnostic.severity == Severity::kError ? counts.errors : counts.warnings) += 1;
    if (diagnostic.file) files.insert(diagnostic.path());
  }
  counts.files_with_findings = files.size();
  return counts;
}

namespace {

// The escapes of printableName() and printableText(); `names` escapes tabs and backslashes too.
std::string escaped(std::string_view text, bool names) {
  auto plain = [names](unsigned char c) {
    if (c == '\t' || c == '\\') return !names;
    return c >= 0x20 && c < 0x7f;
  };
  if (std::all_of(text.begin(), text.end(), [&](char c) { return plain(c); })) {
    return std::string(text);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  auto escape = [&](unsigned char c) {
    switch (c) {
      case '\n':
        out += "\\n";
        return;
      case '\t':
        out += "\\t";
        return;
      case '\r':
        out += "\\r";
        return;
      case '\\':
        out += "\\\\";
        return;
      default:
        out += "\\x";
        out += kHex[c >> 4];
        out += kHex[c & 15];
    }
  };
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (plain(c)) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    if (c < 0x80) {
      escape(c);
      ++i;
      continue;
    }
    // A whole UTF-8 sequence is kept, unless it is a C1 control (U+0080 to U+009F).
    const std::size_t length = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
    const std::string_view rest = text.substr(i);
    const bool whole = length != 0 && rest.size() >= length &&
                       firstInvalidUtf8(rest.substr(0, length)) == std::string_view::npos;
    const bool c1 = length == 2 && c == 0xc2 && static_cast<unsigned char>(text[i + 1]) < 0xa0;
    if (whole && !c1) {
      out.append(rest.substr(0, length));
      i += length;
    } else {
      escape(c);
      ++i;
    }
  }
  return out;
}

}  // namespace

std::string printableName(std::string_view text) {
  return escaped(text, true);
}

std::string printableText(std::string_view text) {
  return escaped(text, false);
}

std::string quotedName(std::string_view path) {
  std::string shown = printableName(path);
  auto safe = [](unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c >= 0x80 ||
           std::string_view("_-./+@%,=:~").find(static_cast<char>(c)) != std::string_view::npos;
  };
  if (!shown.empty() && std::all_of(shown.begin(), shown.end(),
                                    [&](char c) { return safe(static_cast<unsigned char>(c)); })) {
    return shown;
  }
  std::string out = "'";
  for (char c : shown) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string_view boundedText(std::string_view text, std::size_t max_bytes, bool& cut) {
  cut = text.size() > max_bytes;
  if (!cut) return text;
  std::size_t end = max_bytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

std::string plural(std::size_t count, const char* singular, const char* plural_form) {
  return std::to_string(count) + " " + (count == 1 ? singular : plural_form);
}

namespace {

// "; 2 C++ files not analyzed: a.cu, k.cuh", naming the first few.
std::string skippedPart(const RunResult& result) {
  constexpr std::size_t kNamed = 5;
  const std::vector<std::string>& skipped = result.skipped_files;
  if (skipped.empty()) return {};
  std::string text = "; " + plural(skipped.size(), "C++ file", "C++ files") + " not analyzed: ";
  for (std::size_t i = 0; i < skipped.size() && i < kNamed; ++i) {
    text += (i == 0 ? "" : ", ") + quotedName(skipped[i]);
  }
  if (skipped.size() > kNamed) text += " and " + std::to_string(skipped.size() - kNamed) + " more";
  return text;
}

// "; 2 files not analyzed completely (see the notices)": a clean summary is no pass then.
std::string incompletePart(const RunResult& result) {
  const Incompleteness counts = incompleteness(result);
  const std::size_t named = counts.files - result.skipped_files.size();
  if (named > 0) {
    return "; " + plural(named, "file", "files") + " not analyzed completely (see the notices)";
  }
  if (counts.unnamed > 0) return "; the analysis was not completed (see the notices)";
  return {};
}

}  // namespace

std::string summaryLine(const RunResult& result) {
  FindingCounts counts = countFindings(result);
  std::string tail =
      result.suppressed == 0 ? "" : " (" + std::to_string(result.suppressed) + " suppressed)";
  tail += skippedPart(result);
  tail += incompletePart(result);
  if (counts.errors + counts.warnings == 0) {
    return "No CUDA-graph hazards found in " + plural(result.files_analyzed, "file", "files") +
           tail + ".";
  }
  std::string found;
  if (counts.errors > 0) found = plural(counts.errors, "error", "errors");
  if (counts.warnings > 0) {
    if (!found.empty()) found += " and ";
    found += plural(counts.warnings, "warning", "warnings");
  }
  return "Found " + found + " in " + plural(counts.files_with_findings, "file", "files") + tail +
         ".";
}

}  // namespace graphsafe
