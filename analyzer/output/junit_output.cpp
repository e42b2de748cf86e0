// JUnit XML, which CI systems (GitLab, Jenkins, Azure Pipelines...) show as a test report:
// every finding is a failing test case named after its rule and place; a clean run is one
// passing case, so that the report is never empty.
#include "analyzer/output/output_common.h"
#include "analyzer/output/output_format.h"
#include "analyzer/source/utf8.h"

namespace graphsafe {

namespace {

// XML 1.0 text or attribute value: markup characters escaped, control characters (which XML
// 1.0 cannot carry at all) and bytes that are not UTF-8 replaced.
std::string xmlEscape(std::string_view text) {
  std::string out;
  while (!text.empty()) {
    std::size_t bad = firstInvalidUtf8(text);
    std::string_view good = text.substr(0, bad);
    for (char c : good) {
      switch (c) {
        case '&':
          out += "&amp;";
          break;
        case '<':
          out += "&lt;";
          break;
        case '>':
          out += "&gt;";
          break;
        case '"':
          out += "&quot;";
          break;
        case '\'':
          out += "&apos;";
          break;
        case '\n':
          out += "&#10;";
          break;
        case '\t':
          out += "&#9;";
          break;
        case '\r':
          out += "&#13;";
          break;
        default:
          if (static_cast<unsigned char>(c) < 0x20) {
            out += "\xEF\xBF\xBD";
          } else {
            out += c;
          }
      }
    }
    if (bad == std::string_view::npos) break;
    out += "\xEF\xBF\xBD";  // U+FFFD for the byte that is not UTF-8
    text.remove_prefix(bad + 1);
  }
  return out;
}

}  // namespace

void writeJunit(const RunResult& result, std::ostream& out) {
  std::size_t tests = result.diagnostics.empty() ? 1 : result.diagnostics.size();
  std::size_t failures = result.diagnostics.size();
  std::string counts = "tests=\"" + std::to_string(tests) + "\" failures=\"" +
                       std::to_string(failures) + "\" errors=\"0\" skipped=\"0\"";
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"graphsafe\" " << counts << ">\n";
  out << "  <testsuite name=\"graphsafe\" " << counts << ">\n";
  if (result.diagnostics.empty()) {
    out << "    <testcase name=\"" << xmlEscape(summaryLine(result))
        << "\" classname=\"graphsafe\"/>\n";
  }
  for (const Diagnostic& diagnostic : result.diagnostics) {
    const SourceFile* file = diagnostic.file.get();
    std::string path = file ? file->path() : "";
    Position start = oneBasedPosition(file, diagnostic.range.start, ColumnUnit::kCodePoints);
    std::string place =
        path + ":" + std::to_string(start.line) + ":" + std::to_string(start.column);
    std::string body = place + ": " + severityName(diagnostic.severity) + "[" + diagnostic.rule_id +
                       "] " + diagnostic.message;
    for (const RelatedLocation& related : diagnostic.related) {
      const SourceFile* related_file = related.file ? related.file.get() : file;
      Position at = oneBasedPosition(related_file, related.range.start, ColumnUnit::kCodePoints);
      body += "\n  " + (related_file ? related_file->path() : path) + ":" +
              std::to_string(at.line) + ":" + std::to_string(at.column) +
              ": note: " + related.message;
    }
    if (!diagnostic.help.empty()) body += "\n  help: " + diagnostic.help;
    out << "    <testcase name=\""
        << xmlEscape(diagnostic.rule_id + " " + diagnostic.rule_name + " at " + place)
        << "\" classname=\"" << xmlEscape(path) << "\" file=\"" << xmlEscape(path) << "\" line=\""
        << start.line << "\">\n";
    out << "      <failure type=\"" << xmlEscape(diagnostic.rule_id) << "\" message=\""
        << xmlEscape(diagnostic.message) << "\">" << xmlEscape(body) << "</failure>\n";
    out << "    </testcase>\n";
  }
  if (!result.notices.empty()) {
    std::string notices;
    for (const Notice& notice : result.notices) {
      notices += (notice.path.empty() ? "" : notice.path + ": ") + notice.message + "\n";
    }
    out << "    <system-err>" << xmlEscape(notices) << "</system-err>\n";
  }
  out << "  </testsuite>\n</testsuites>\n";
}

}  // namespace graphsafe
