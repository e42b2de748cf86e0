#include "analyzer/engine/severity_overrides.h"

namespace graphsafe {

void applySeverityOverrides(const std::map<std::string, Severity>& overrides,
                            std::vector<Diagnostic>& diagnostics) {
  if (overrides.empty()) return;
  for (Diagnostic& diagnostic : diagnostics) {
    const std::string* best = nullptr;
    Severity severity = diagnostic.severity;
    for (const auto& [code, configured] : overrides) {
      if (code.empty() || !std::string_view(diagnostic.rule_id).starts_with(code)) continue;
      if (best == nullptr || code.size() > best->size()) {
        best = &code;
        severity = configured;
      }
    }
    diagnostic.severity = severity;
  }
}

}  // namespace graphsafe
