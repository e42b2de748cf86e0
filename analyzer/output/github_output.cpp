// GitHub Actions workflow commands: each finding becomes an annotation on the pull request's
// diff (`::error file=...,line=...::message`), each notice a `::notice`. An annotation is all
// a reviewer sees, so its message carries the why: the capture site and the call path, as the
// text output's notes, then the help line.
#include "analyzer/output/github_output.h"

#include "analyzer/output/call_path_lines.h"
#include "analyzer/output/output_common.h"
#include "analyzer/output/output_format.h"

namespace graphsafe {

std::string escapeWorkflowData(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '%':
        out += "%25";
        break;
      case '\r':
        out += "%0D";
        break;
      case '\n':
        out += "%0A";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string escapeWorkflowProperty(std::string_view text) {
  std::string out;
  for (char c : escapeWorkflowData(text)) {
    if (c == ':') {
      out += "%3A";
    } else if (c == ',') {
      out += "%2C";
    } else {
      out += c;
    }
  }
  return out;
}

namespace {

// GitHub shows an annotation's message whole (up to 64 KB); a dozen lines of path keep it
// readable next to the diff.
constexpr std::size_t kCallPathLines = 12;

}  // namespace

void writeGithub(const RunResult& result, std::ostream& out) {
  for (const Notice& notice : result.notices) {
    out << "::notice";
    if (!notice.path.empty()) {
      out << " file=" << escapeWorkflowProperty(notice.path);
      if (notice.line >= 0) out << ",line=" << notice.line + 1;
    }
    out << "::" << escapeWorkflowData(notice.message) << "\n";
  }
  for (const Diagnostic& diagnostic : result.diagnostics) {
    const SourceFile* file = diagnostic.file.get();
    Position start = oneBasedPosition(file, diagnostic.range.start, ColumnUnit::kCodePoints);
    Position end = oneBasedPosition(file, diagnostic.range.stop, ColumnUnit::kCodePoints);
    std::string message = diagnostic.message;
    for (const std::string& line : callPathLines(diagnostic, kCallPathLines)) {
      message += "\n" + line;
    }
    if (!diagnostic.help.empty()) message += "\nhelp: " + diagnostic.help;
    out << "::" << severityName(diagnostic.severity)
        << " file=" << escapeWorkflowProperty(file ? file->path() : "") << ",line=" << start.line
        << ",col=" << start.column << ",endLine=" << end.line << ",endColumn=" << end.column
        << ",title=" << escapeWorkflowProperty(diagnostic.rule_id + " " + diagnostic.rule_name)
        << "::" << escapeWorkflowData(message) << "\n";
  }
}

}  // namespace graphsafe
