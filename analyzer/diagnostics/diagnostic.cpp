#include "analyzer/diagnostics/diagnostic.h"

#include <tuple>

namespace graphsafe {

const char* severityName(Severity severity) {
  return severity == Severity::kError ? "error" : "warning";
}

bool diagnosticLess(const Diagnostic& a, const Diagnostic& b) {
  return std::tie(a.path(), a.range.start.line, a.range.start.column, a.rule_id, a.message) <
         std::tie(b.path(), b.range.start.line, b.range.start.column, b.rule_id, b.message);
}

}  // namespace graphsafe
