// Compiler-style text output, as clang and rustc print: the location and message, the source
// line with a caret under the range, a note per related location, and a help line.
#include <algorithm>
#include <cstdio>
#include <string_view>

#include "analyzer/output/output_common.h"
#include "analyzer/output/output_format.h"

namespace graphsafe {

namespace {

struct Style {
  bool color = false;
  std::string_view paint(const char* code) const { return color ? code : ""; }
  std::string_view bold() const { return paint("\033[1m"); }
  std::string_view red() const { return paint("\033[1;31m"); }
  std::string_view yellow() const { return paint("\033[1;33m"); }
  std::string_view green() const { return paint("\033[1;32m"); }
  std::string_view cyan() const { return paint("\033[1;36m"); }
  std::string_view magenta() const { return paint("\033[1;35m"); }
  std::string_view reset() const { return paint("\033[0m"); }
};

bool isContinuationByte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

std::string location(const SourceFile* file, const std::string& path, SourcePoint point) {
  Position position = oneBasedPosition(file, point, ColumnUnit::kCodePoints);
  return printableName(path) + ":" + std::to_string(position.line) + ":" +
         std::to_string(position.column);
}

// The source line under a line-number gutter, then the caret line: the prefix is copied as
// blanks (tabs kept, one blank per code point) so the caret lands under the range.
void writeSnippet(const Diagnostic& diagnostic, std::ostream& out, const Style& style) {
  const SourceFile* file = diagnostic.file.get();
  if (file == nullptr || diagnostic.range.start.line >= file->lineCount()) return;
  std::string_view line = file->line(diagnostic.range.start.line);
  std::size_t begin = std::min<std::size_t>(diagnostic.range.start.column, line.size());
  std::size_t end = diagnostic.range.stop.line == diagnostic.range.start.line
                        ? std::min<std::size_t>(diagnostic.range.stop.column, line.size())
                        : line.size();
  if (end < begin) end = begin;

  char gutter[32];
  std::snprintf(gutter, sizeof gutter, "%5u", diagnostic.range.start.line + 1);
  std::string blank_gutter(std::string_view(gutter).size(), ' ');
  out << gutter << " | " << line << "\n";

  std::string caret;
  for (std::size_t i = 0; i < begin; ++i) {
    if (line[i] == '\t') {
      caret += '\t';
    } else if (!isContinuationByte(line[i])) {
      caret += ' ';
    }
  }
  std::string marks = "^";
  bool first = true;
  for (std::size_t i = begin; i < end; ++i) {
    if (isContinuationByte(line[i])) continue;
    if (!first) marks += '~';
    first = false;
  }
  out << blank_gutter << " | " << caret << style.green() << marks << style.reset() << "\n";
}

void writeDiagnostic(const Diagnostic& diagnostic, std::ostream& out, const Style& style) {
  const SourceFile* file = diagnostic.file.get();
  bool error = diagnostic.severity == Severity::kError;
  std::string_view color = error ? style.red() : style.yellow();
  out << style.bold()
      << location(file, diagnostic.file ? diagnostic.path() : "", diagnostic.range.start) << ":"
      << style.reset() << " " << color << severityName(diagnostic.severity) << "["
      << diagnostic.rule_id << "]" << style.reset() << " " << style.bold() << diagnostic.message
      << style.reset() << "\n";
  writeSnippet(diagnostic, out, style);
  for (const RelatedLocation& related : diagnostic.related) {
    const SourceFile* related_file = related.file ? related.file.get() : file;
    std::string path = related_file ? related_file->path() : "";
    out << "  " << style.bold() << location(related_file, path, related.range.start) << ":"
        << style.reset() << " " << style.cyan() << "note:" << style.reset() << " "
        << related.message << "\n";
  }
  if (!diagnostic.help.empty()) {
    out << "  " << style.cyan() << "help:" << style.reset() << " " << diagnostic.help << "\n";
  }
}

void writeSummary(const RunResult& result, std::ostream& out, std::ostream& status,
                  const OutputOptions& options) {
  if (options.quiet) return;
  (result.diagnostics.empty() ? status : out) << summaryLine(result) << "\n";
}

}  // namespace

void writeNotices(const std::vector<Notice>& notices, std::ostream& out, bool color) {
  Style style{color};
  for (const Notice& notice : notices) {
    out << style.bold()
        << (notice.path.empty() ? std::string("graphsafe") : printableName(notice.path));
    if (notice.line >= 0) out << ":" << notice.line + 1;
    out << ":" << style.reset() << " " << style.magenta() << "notice:" << style.reset() << " "
        << notice.message << "\n";
  }
}

void writeText(const RunResult& result, std::ostream& out, std::ostream& status,
               const OutputOptions& options) {
  Style style{options.color};
  writeNotices(result.notices, status, options.status_color);
  for (std::size_t i = 0; i < result.diagnostics.size(); ++i) {
    if (i > 0) out << "\n";
    writeDiagnostic(result.diagnostics[i], out, style);
  }
  if (!result.diagnostics.empty() && !options.quiet) out << "\n";
  writeSummary(result, out, status, options);
}

void writeConcise(const RunResult& result, std::ostream& out, std::ostream& status,
                  const OutputOptions& options) {
  Style style{options.color};
  writeNotices(result.notices, status, options.status_color);
  for (const Diagnostic& diagnostic : result.diagnostics) {
    bool error = diagnostic.severity == Severity::kError;
    out << style.bold()
        << location(diagnostic.file.get(), diagnostic.file ? diagnostic.path() : "",
                    diagnostic.range.start)
        << ":" << style.reset() << " " << (error ? style.red() : style.yellow())
        << diagnostic.rule_id << style.reset() << " [" << severityName(diagnostic.severity) << "] "
        << diagnostic.message << "\n";
  }
  writeSummary(result, out, status, options);
}

}  // namespace graphsafe
