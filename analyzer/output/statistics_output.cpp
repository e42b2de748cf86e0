// --statistics: how often each rule fired, most frequent first, as `ruff --statistics` prints.
#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "analyzer/output/output_format.h"

namespace graphsafe {

namespace {

struct RuleCount {
  std::string id;
  std::string name;
  Severity severity = Severity::kError;
  std::size_t count = 0;
};

std::vector<RuleCount> countByRule(const RunResult& result) {
  std::map<std::string, RuleCount> by_id;
  for (const Diagnostic& diagnostic : result.diagnostics) {
    RuleCount& entry = by_id[diagnostic.rule_id];
    entry.id = diagnostic.rule_id;
    entry.name = diagnostic.rule_name;
    entry.severity = diagnostic.severity;
    ++entry.count;
  }
  std::vector<RuleCount> counts;
  for (auto& [id, entry] : by_id) counts.push_back(std::move(entry));
  std::stable_sort(counts.begin(), counts.end(),
                   [](const RuleCount& a, const RuleCount& b) { return a.count > b.count; });
  return counts;
}

}  // namespace

void writeStatistics(const RunResult& result, std::ostream& out, bool json) {
  std::vector<RuleCount> counts = countByRule(result);
  if (json) {
    nlohmann::json list = nlohmann::json::array();
    for (const RuleCount& entry : counts) {
      list.push_back({{"code", entry.id},
                      {"name", entry.name},
                      {"severity", severityName(entry.severity)},
                      {"count", entry.count}});
    }
    out << list.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return;
  }
  std::size_t width = counts.empty() ? 1 : std::to_string(counts.front().count).size();
  for (const RuleCount& entry : counts) {
    std::string count = std::to_string(entry.count);
    out << std::string(width - count.size(), ' ') << count << "\t" << entry.id << "\t["
        << severityName(entry.severity) << "] " << entry.name << "\n";
  }
}

}  // namespace graphsafe
