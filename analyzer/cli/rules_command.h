#pragma once

#include <ostream>
#include <string_view>

namespace graphsafe {

// `graphsafe rules`: the catalog as a table (ID, name, severity, languages, whether this build
// implements the check, summary), or as a JSON array with `json`.
void writeRuleList(std::ostream& out, bool json);

// `graphsafe explain ID`: the rule's page. Accepts an ID or a rule name; returns false when the
// catalog has no such rule.
bool writeRuleExplanation(std::string_view rule, std::ostream& out);

}  // namespace graphsafe
