#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analyzer/diagnostics/diagnostic.h"

namespace graphsafe {

// One probe case of a rule: runtime-probe/cases/<lang>/<dir>/{bug,fix}.<ext>.
struct ProbeCase {
  std::string language;  // "python" | "cuda"
  std::string path;      // relative to runtime-probe/cases
};

// One code example of a rule, in one of its languages.
struct CodeExample {
  std::string language;  // "python" | "cuda"
  std::string code;
};

// One entry of the catalog (rules/<family>/<name>.yaml). IDs are stable forever.
struct RuleInfo {
  std::string id;      // "GS401"
  std::string name;    // "host-sync"
  std::string family;  // "frozen-choice", "frozen-pointers", "missing-nodes",
                       // "refused-by-capture", "async-replay", "performance"
                       // (analyzer/catalog/rule_family.h)
  Severity severity = Severity::kError;
  std::vector<std::string> languages;  // "python", "cuda"
  bool applies_when_traced = false;    // (T) in RULES.md: also fires in Dynamo-traced regions
  bool implemented = false;            // a check exists in this build
  std::string summary;                 // one line: what it flags
  std::string rationale;               // why it is wrong on replay
  std::string bad;       // example in the rule's primary language (the first one that has one)
  std::string good;      // example in the rule's primary language
  std::string fix;       // one-line help
  std::string detects;   // what the check really sees
  std::string misses;    // known false negatives
  std::string observed;  // the runtime probe's measured verdict, if any
  std::vector<ProbeCase> probe_cases;
  std::vector<CodeExample> bad_examples;   // every language's bad example, in `languages` order
  std::vector<CodeExample> good_examples;  // every language's good example, in `languages` order

  std::string docsUrl() const;
};

// The catalog, parsed once from the embedded YAML.
class RuleCatalog {
 public:
  static const RuleCatalog& instance();

  const std::vector<RuleInfo>& rules() const { return rules_; }
  // By ID ("GS401"); a rule name ("host-sync") is accepted too.
  const RuleInfo* find(std::string_view id) const;

  // Parses catalog YAML documents (file name, content); returns the rules sorted by ID.
  // Throws std::runtime_error "<file>:<line>:<column>: <key>: <problem>" on a bad entry.
  static std::vector<RuleInfo> parse(const std::vector<std::pair<std::string, std::string>>& files);

 private:
  RuleCatalog();
  std::vector<RuleInfo> rules_;
};

}  // namespace graphsafe
