#include "analyzer/catalog/rule_family.h"

#include <algorithm>
#include <array>

namespace graphsafe {

namespace {

constexpr std::array<RuleFamily, 6> kFamilies = {{
    {'1', "frozen-choice", "frozen_choice", "Frozen choice",
     "decisions the CPU made during capture become constants of the graph"},
    {'2', "frozen-pointers", "frozen_pointers", "Frozen pointers",
     "the graph reads and writes the addresses it saw at capture, whatever lives there now"},
    {'3', "missing-nodes", "missing_nodes", "Missing nodes",
     "only work on the capturing stream is recorded; the rest runs once and is gone"},
    {'4', "refused-by-capture", "refused_by_capture", "Refused by capture",
     "operations that capture does not allow: the capture fails"},
    {'5', "async-replay", "async_replay", "Async replay",
     "replay only enqueues work; the CPU and other streams race it"},
    {'6', "performance", "performance", "Performance",
     "graphs that replay correctly but slowly: split, skipped, outweighed by their input copies, "
     "serialized, or captured anew for every value"},
}};

}  // namespace

std::span<const RuleFamily> ruleFamilies() {
  return kFamilies;
}

const RuleFamily* findRuleFamily(std::string_view name) {
  const auto* it = std::find_if(kFamilies.begin(), kFamilies.end(),
                                [&](const RuleFamily& family) { return family.name == name; });
  return it == kFamilies.end() ? nullptr : &*it;
}

std::string catalogEntryPath(const RuleInfo& rule) {
  const RuleFamily* family = findRuleFamily(rule.family);
  std::string file = rule.name;
  std::replace(file.begin(), file.end(), '-', '_');
  return "rules/" + std::string(family ? family->folder : std::string_view("unknown")) + "/" +
         file + ".yaml";
}

}  // namespace graphsafe
