#pragma once

// The six families of the catalog: the four ways a recording goes wrong, what capture refuses
// outright, and graphs that are correct but slow. A rule's family is the hundreds digit of its ID
// (GS1xx = frozen choice), and its catalog entry lives in the family's folder under rules/.

#include <span>
#include <string>
#include <string_view>

#include "analyzer/catalog/rule_catalog.h"

namespace graphsafe {

struct RuleFamily {
  char digit = '0';          // '1' for GS1xx
  std::string_view name;     // "frozen-choice": the catalog's `family` value
  std::string_view folder;   // "frozen_choice": rules/<folder>/
  std::string_view title;    // "Frozen choice"
  std::string_view tagline;  // what goes wrong, in a few words
};

// In ID order.
std::span<const RuleFamily> ruleFamilies();
const RuleFamily* findRuleFamily(std::string_view name);

// The rule's catalog entry, relative to the repository root:
// rules/<family folder>/<name with underscores>.yaml.
std::string catalogEntryPath(const RuleInfo& rule);

}  // namespace graphsafe
