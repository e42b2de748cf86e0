#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analyzer/diagnostics/diagnostic.h"

namespace graphsafe {

// One probe case of a rule: runtime-probe/cases/<lang>/<dir>/{bug,fix}.<ext>.
struct ProbeCase {
  std::string language;  // "python" | "cuda"
  std::string path;      // relative to runtime-probe/cases
};

// One entry of the catalog (rules/<family>/<name>.yaml). IDs are stable forever.
struct RuleInfo {
  std::string id;        // "GS401"
  std::string name;      // "host-sync"
  std::string family;    // "frozen-choice", "frozen-pointers", "missing-nodes", "refused", "async-replay"
  Severity severity = Severity::kError;
  std::vector<std::string> languages;  // "python", "cuda"
  bool applies_when_traced = false;    // (T) in RULES.md: also fires in Dynamo-traced regions
  bool implemented = false;            // a check exists in this build
  std::string summary;    // one line: what it flags
  std::string rationale;  // why it is wrong on replay
  std::string bad;        // example
  std::string good;       // example
  std::string fix;        // one-line help
  std::string detects;    // what the check really sees
  std::string misses;     // known false negatives
  std::string observed;   // the runtime probe's measured verdict, if any
  std::vector<ProbeCase> probe_cases;

  std::string docsUrl() const;
};

// The catalog, parsed once from the embedded YAML.
class RuleCatalog {
 public:
  static const RuleCatalog& instance();

  const std::vector<RuleInfo>& rules() const { return rules_; }
  const RuleInfo* find(std::string_view id) const;

  // Parses catalog YAML documents; throws std::runtime_error naming the file and key on error.
  static std::vector<RuleInfo> parse(const std::vector<std::pair<std::string, std::string>>& files);

 private:
  RuleCatalog();
  std::vector<RuleInfo> rules_;
};

}  // namespace graphsafe
