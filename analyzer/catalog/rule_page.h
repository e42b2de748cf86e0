#pragma once

// A rule's page, rendered from its catalog entry: as terminal text for `graphsafe explain` and
// LSP hovers, and as Markdown for docs/rules/. Both have the same sections, in this order:
// What it does, Why is this bad?, Example, Use instead, Fix, What graphsafe detects,
// Known misses, Measured on hardware, Suppress.

#include <string>
#include <vector>

#include "analyzer/catalog/probe_results.h"
#include "analyzer/catalog/rule_catalog.h"

namespace graphsafe {

// What `run` measured for one case, as a page says it: "reproduced: observed [9.0], correct is
// [8.5]", or for a timing case "slower: 2.40x the time per iteration of fix.py (2.30x to 2.50x
// over 3 runs; 0.41 ms against 0.171 ms)".
std::string measurementText(const ProbeRun& run, const ProbeCase& probe);

// Plain text, wrapped for an 80-column terminal, with no color codes.
std::string renderRulePage(const RuleInfo& rule);

// docs/rules/<ID>-<name>.md.
std::string renderRuleMarkdown(const RuleInfo& rule);

// docs/rules/README.md: every rule, by family, with a link to its page.
std::string renderRuleIndexMarkdown(const std::vector<RuleInfo>& rules);

// "docs/rules/GS401-host-sync.md", relative to the repository root.
std::string ruleDocsPath(const RuleInfo& rule);

}  // namespace graphsafe
