#pragma once

// `graphsafe merge`: SARIF files of sharded runs (or of several tools) into one document.
//
// Runs of the same tool (driver name and version), the same source root (originalUriBaseIds)
// and column kind become one run: its rules are the union of the runs' rules (by ID, first
// seen first), each result's ruleIndex is renumbered into that union, artifacts are united by
// location and artifactLocation.index renumbered, identical results (after renumbering) are
// kept once, and results are ordered by file, line, column and rule. Invocations are kept, one
// per input run, with identical notifications kept once. Runs of other tools stay separate runs.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace graphsafe {

// Merges whole SARIF documents. Returns false with a one-line `error` naming the input (by its
// position in `names`) that is not a SARIF 2.1.0 log.
bool mergeSarif(const std::vector<nlohmann::json>& documents, const std::vector<std::string>& names,
                nlohmann::json& merged, std::string& error);

// `graphsafe merge FILE... [-o OUT]`: reads, merges, writes (atomically; stdout when `output`
// is empty). Returns the exit code: 0, or 2 with "graphsafe: error: ..." on `err`.
int runMergeCommand(const std::vector<std::string>& inputs, const std::string& output,
                    std::ostream& out, std::ostream& err);

}  // namespace graphsafe
