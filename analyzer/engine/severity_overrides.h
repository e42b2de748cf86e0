#pragma once

#include <map>
#include <string>
#include <vector>

#include "analyzer/diagnostics/diagnostic.h"

namespace graphsafe {

// Replaces each diagnostic's severity with the configured one; keys are rule IDs or prefixes
// and the longest key that prefixes the rule ID wins ("GS401" over "GS4").
void applySeverityOverrides(const std::map<std::string, Severity>& overrides,
                            std::vector<Diagnostic>& diagnostics);

}  // namespace graphsafe
