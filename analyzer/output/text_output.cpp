// Compiler-style text output, as clang and rustc print: the location and message, the source
// line with a caret under the range, a note per related location, and a help line.
//
// The text is the analyzed code's, and the code is a stranger's: every piece of it is printed
// through printableText() (an escape sequence in a string literal reaches the terminal as
// `\x1b`, never as a command to it), file names through quotedName(), and each piece within a
// bound, so that the report grows with the findings, not with findings times line length (a
// minified file with thousands of findings on one line).
#include <algorithm>
#include <cstdio>
#include <string_view>

#include "analyzer/output/output_common.h"
#include "analyzer/output/output_format.h"

namespace graphsafe {

namespace {

// A message, note or help line longer than this is cut (a message quoting a huge expression).
constexpr std::size_t kMaxMessageBytes = 2000;
// The source line shown is a window of this many bytes around the range's start.
constexpr std::size_t kSnippetBytes = 240;
constexpr std::size_t kSnippetLead = 80;  // of them before the range, when the line is longer

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

// `offset` moved back to the start of the UTF-8 sequence it lies in.
std::size_t sequenceStart(std::string_view text, std::size_t offset) {
  while (offset > 0 && offset < text.size() && isContinuationByte(text[offset])) --offset;
  return offset;
}

std::string location(const SourceFile* file, const std::string& path, SourcePoint point) {
  Position position = oneBasedPosition(file, point, ColumnUnit::kCodePoints);
  return quotedName(path) + ":" + std::to_string(position.line) + ":" +
         std::to_string(position.column);
}

// Text of the analyzed code or derived from it, as printed: escaped and within its bound.
std::string shown(std::string_view text) {
  bool cut = false;
  std::string out = printableText(boundedText(text, kMaxMessageBytes, cut));
  if (cut) out += "...";
  return out;
}

// The source line under a line-number gutter, then the caret line: the prefix is copied as
// blanks (tabs kept, one blank per shown column) so the caret lands under the range. A long
// line is shown as a window around the range, with "..." where it is cut.
void writeSnippet(const Diagnostic& diagnostic, std::ostream& out, const Style& style) {
  const SourceFile* file = diagnostic.file.get();
  if (file == nullptr || diagnostic.range.start.line >= file->lineCount()) return;
  std::string_view line = file->line(diagnostic.range.start.line);
  std::size_t begin = std::min<std::size_t>(diagnostic.range.start.column, line.size());
  std::size_t end = diagnostic.range.stop.line == diagnostic.range.start.line
                        ? std::min<std::size_t>(diagnostic.range.stop.column, line.size())
                        : line.size();
  if (end < begin) end = begin;

  std::size_t from = 0;
  std::size_t to = line.size();
  if (line.size() > kSnippetBytes) {
    from = begin > kSnippetLead ? sequenceStart(line, begin - kSnippetLead) : 0;
    to = sequenceStart(line, std::min(line.size(), from + kSnippetBytes));
    if (to <= begin) to = sequenceStart(line, std::min(line.size(), begin + 1));
  }
  end = std::min(end, to);

  std::string code = from > 0 ? "..." : "";
  std::string caret(code.size(), ' ');
  std::string marks;
  for (std::size_t i = from; i < to;) {
    std::size_t next = i + 1;
    while (next < to && isContinuationByte(line[next])) ++next;
    const std::string piece = printableText(line.substr(i, next - i));
    code += piece;
    if (i < begin) {
      // One blank per shown column: an escape (`\x1b`) is four, a code point one.
      caret += piece == "\t" ? std::string("\t")
                             : std::string(piece.size() == next - i ? 1 : piece.size(), ' ');
    } else if (i < end) {
      marks += marks.empty() ? "^" : "~";
      if (piece.size() != next - i) marks += std::string(piece.size() - 1, '~');
    }
    i = next;
  }
  if (to < line.size()) code += "...";
  if (marks.empty()) marks = "^";

  char gutter[32];
  std::snprintf(gutter, sizeof gutter, "%5u", diagnostic.range.start.line + 1);
  std::string blank_gutter(std::string_view(gutter).size(), ' ');
  out << gutter << " | " << code << "\n";
  out << blank_gutter << " | " << caret << style.green() << marks << style.reset() << "\n";
}

void writeDiagnostic(const Diagnostic& diagnostic, std::ostream& out, const Style& style) {
  const SourceFile* file = diagnostic.file.get();
  bool error = diagnostic.severity == Severity::kError;
  std::string_view color = error ? style.red() : style.yellow();
  out << style.bold()
      << location(file, diagnostic.file ? diagnostic.path() : "", diagnostic.range.start) << ":"
      << style.reset() << " " << color << severityName(diagnostic.severity) << "["
      << diagnostic.rule_id << "]" << style.reset() << " " << style.bold()
      << shown(diagnostic.message) << style.reset() << "\n";
  writeSnippet(diagnostic, out, style);
  for (const RelatedLocation& related : diagnostic.related) {
    const SourceFile* related_file = related.file ? related.file.get() : file;
    std::string path = related_file ? related_file->path() : "";
    out << "  " << style.bold() << location(related_file, path, related.range.start) << ":"
        << style.reset() << " " << style.cyan() << "note:" << style.reset() << " "
        << shown(related.message) << "\n";
  }
  if (!diagnostic.help.empty()) {
    out << "  " << style.cyan() << "help:" << style.reset() << " " << shown(diagnostic.help)
        << "\n";
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
        << (notice.path.empty() ? std::string("graphsafe") : quotedName(notice.path));
    if (notice.line >= 0) out << ":" << notice.line + 1;
    out << ":" << style.reset() << " " << style.magenta() << "notice:" << style.reset() << " "
        << shown(notice.message) << "\n";
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
        << shown(diagnostic.message) << "\n";
  }
  writeSummary(result, out, status, options);
}

}  // namespace graphsafe
