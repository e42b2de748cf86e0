#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace graphsafe {

// `graphsafe rules`: the catalog as a table (ID, name, severity, languages, whether this build
// implements the check, summary), or as a JSON array with `json`.
void writeRuleList(std::ostream& out, bool json);

struct RuleInfo;

// A rule by ID or name, in any case (`gs401`, `Host-Sync`); null when the catalog has none.
const RuleInfo* findRule(std::string_view rule);

// The ID or name an unknown `rule` most likely meant (`GS4O1` -> `GS401`), for "did you mean".
std::optional<std::string> suggestRule(std::string_view rule);

// `graphsafe explain ID`: the rule's page. Accepts an ID or a rule name in any case; returns
// false when the catalog has no such rule.
bool writeRuleExplanation(std::string_view rule, std::ostream& out);

}  // namespace graphsafe
