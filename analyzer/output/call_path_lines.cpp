#include "analyzer/output/call_path_lines.h"

#include "analyzer/output/output_common.h"

namespace graphsafe {

namespace {

std::string noteLine(const Diagnostic& diagnostic, const RelatedLocation& related) {
  const SourceFile* file = related.file ? related.file.get() : diagnostic.file.get();
  Position at = oneBasedPosition(file, related.range.start, ColumnUnit::kCodePoints);
  return (file ? file->path() : std::string()) + ":" + std::to_string(at.line) + ":" +
         std::to_string(at.column) + ": " + related.message;
}

}  // namespace

std::vector<std::string> callPathLines(const Diagnostic& diagnostic, std::size_t max_lines) {
  const std::vector<RelatedLocation>& related = diagnostic.related;
  std::vector<std::string> lines;
  if (related.size() <= max_lines || max_lines < 3) {
    for (const RelatedLocation& location : related) lines.push_back(noteLine(diagnostic, location));
    return lines;
  }
  // The capture site and the calls nearest to it, then those nearest to the finding.
  std::size_t kept = max_lines - 1;
  std::size_t head = (kept + 1) / 2;
  std::size_t tail = kept - head;
  for (std::size_t i = 0; i < head; ++i) lines.push_back(noteLine(diagnostic, related[i]));
  std::size_t left_out = related.size() - head - tail;
  lines.push_back("... " + plural(left_out, "call", "calls") + " left out ...");
  for (std::size_t i = related.size() - tail; i < related.size(); ++i) {
    lines.push_back(noteLine(diagnostic, related[i]));
  }
  return lines;
}

}  // namespace graphsafe
