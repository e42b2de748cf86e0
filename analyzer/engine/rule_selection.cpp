#include <algorithm>

#include "analyzer/engine/engine.h"

namespace graphsafe {

namespace {
bool matchesAny(const std::vector<std::string>& codes, std::string_view rule_id) {
  return std::any_of(codes.begin(), codes.end(),
                     [&](const std::string& code) { return rule_id.starts_with(code); });
}
}  // namespace

bool RuleSelection::enabled(std::string_view rule_id) const {
  if (matchesAny(ignore, rule_id)) return false;
  return select.empty() || matchesAny(select, rule_id);
}

}  // namespace graphsafe
