#include "analyzer/output/sarif_merge.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "analyzer/engine/file_walker.h"
#include "analyzer/io/atomic_write.h"
#include "analyzer/io/bounded_read.h"

namespace graphsafe {

namespace {

using nlohmann::json;

constexpr const char* kDefaultSchema = "https://json.schemastore.org/sarif-2.1.0.json";
// A SARIF log of a very large tree is tens of MB; an input past this is not one to merge.
constexpr std::size_t kMaxSarifBytes = std::size_t{2} << 30;

std::string dump(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

const json* member(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::string stringMember(const json& object, const char* key) {
  const json* value = member(object, key);
  return value && value->is_string() ? value->get<std::string>() : std::string();
}

// Runs that merge into one: same tool, same version, same source root, same column kind.
std::string runGroupKey(const json& run) {
  const json* tool = member(run, "tool");
  const json* driver = tool ? member(*tool, "driver") : nullptr;
  std::string key = driver ? stringMember(*driver, "name") + "\n" + stringMember(*driver, "version")
                           : std::string("\n");
  const json* bases = member(run, "originalUriBaseIds");
  key += "\n" + (bases ? dump(*bases) : std::string()) + "\n" + stringMember(run, "columnKind");
  return key;
}

// Renumbers every artifactLocation.index below `value` through `mapping`.
void renumberArtifacts(json& value, const std::vector<std::size_t>& mapping) {
  if (value.is_object()) {
    for (auto& [key, child] : value.items()) {
      if (key == "artifactLocation" && child.is_object() && child.contains("index") &&
          child["index"].is_number_unsigned() &&
          child["index"].get<std::size_t>() < mapping.size()) {
        child["index"] = mapping[child["index"].get<std::size_t>()];
      }
      renumberArtifacts(child, mapping);
    }
  } else if (value.is_array()) {
    for (json& child : value) renumberArtifacts(child, mapping);
  }
}

// The order graphsafe reports in: file, line, column, rule.
std::tuple<std::string, std::int64_t, std::int64_t, std::string> resultOrder(const json& result) {
  std::string uri;
  std::int64_t line = 0;
  std::int64_t column = 0;
  const json* locations = member(result, "locations");
  if (locations && locations->is_array() && !locations->empty()) {
    const json* physical = member(locations->front(), "physicalLocation");
    const json* artifact = physical ? member(*physical, "artifactLocation") : nullptr;
    const json* region = physical ? member(*physical, "region") : nullptr;
    if (artifact) uri = stringMember(*artifact, "uri");
    if (region) {
      const json* start_line = member(*region, "startLine");
      const json* start_column = member(*region, "startColumn");
      if (start_line && start_line->is_number_integer()) line = start_line->get<std::int64_t>();
      if (start_column && start_column->is_number_integer()) {
        column = start_column->get<std::int64_t>();
      }
    }
  }
  return {uri, line, column, stringMember(result, "ruleId")};
}

class RunMerger {
 public:
  explicit RunMerger(const json& first) : run_(first) {
    run_["results"] = json::array();
    run_["invocations"] = json::array();
    json& driver = run_["tool"]["driver"];
    driver["rules"] = json::array();
    if (run_.contains("artifacts")) run_["artifacts"] = json::array();
  }

  void add(const json& run) {
    // Rules: the union by ID; old index -> new index.
    std::vector<std::size_t> rule_mapping;
    const json* tool = member(run, "tool");
    const json* driver = tool ? member(*tool, "driver") : nullptr;
    const json* rules = driver ? member(*driver, "rules") : nullptr;
    if (rules && rules->is_array()) {
      for (const json& rule : *rules) rule_mapping.push_back(ruleIndex(rule));
    }
    std::vector<std::size_t> artifact_mapping;
    const json* artifacts = member(run, "artifacts");
    if (artifacts && artifacts->is_array()) {
      for (const json& artifact : *artifacts) artifact_mapping.push_back(artifactIndex(artifact));
    }
    const json* results = member(run, "results");
    if (results && results->is_array()) {
      for (json result : *results) {
        if (result.contains("ruleIndex") && result["ruleIndex"].is_number_unsigned()) {
          std::size_t old_index = result["ruleIndex"].get<std::size_t>();
          if (old_index < rule_mapping.size()) {
            result["ruleIndex"] = rule_mapping[old_index];
          } else {
            result.erase("ruleIndex");
          }
        }
        renumberArtifacts(result, artifact_mapping);
        if (seen_results_.insert(dump(result)).second) run_["results"].push_back(std::move(result));
      }
    }
    const json* invocations = member(run, "invocations");
    if (invocations && invocations->is_array()) {
      for (const json& invocation : *invocations) addInvocation(invocation);
    }
  }

  json finish() {
    json& results = run_["results"];
    std::stable_sort(results.begin(), results.end(),
                     [](const json& a, const json& b) { return resultOrder(a) < resultOrder(b); });
    return std::move(run_);
  }

 private:
  std::size_t ruleIndex(const json& rule) {
    std::string id = stringMember(rule, "id");
    auto [it, added] = rule_ids_.try_emplace(id.empty() ? dump(rule) : id, rule_ids_.size());
    if (added) run_["tool"]["driver"]["rules"].push_back(rule);
    return it->second;
  }

  std::size_t artifactIndex(const json& artifact) {
    const json* location = member(artifact, "location");
    std::string key = location ? dump(*location) : dump(artifact);
    auto [it, added] = artifact_keys_.try_emplace(key, artifact_keys_.size());
    if (added) run_["artifacts"].push_back(artifact);
    return it->second;
  }

  void addInvocation(json invocation) {
    json* notifications = invocation.contains("toolExecutionNotifications")
                              ? &invocation["toolExecutionNotifications"]
                              : nullptr;
    if (notifications && notifications->is_array()) {
      json kept = json::array();
      for (json& notification : *notifications) {
        if (seen_notifications_.insert(dump(notification)).second) {
          kept.push_back(std::move(notification));
        }
      }
      *notifications = std::move(kept);
    }
    run_["invocations"].push_back(std::move(invocation));
  }

  json run_;
  std::map<std::string, std::size_t> rule_ids_;
  std::map<std::string, std::size_t> artifact_keys_;
  std::set<std::string> seen_results_;
  std::set<std::string> seen_notifications_;
};

bool isSarifLog(const json& document) {
  const json* version = member(document, "version");
  const json* runs = member(document, "runs");
  if (!version || !version->is_string() || version->get<std::string>() != "2.1.0") return false;
  if (!runs || !runs->is_array()) return false;
  return std::all_of(runs->begin(), runs->end(), [](const json& run) {
    const json* tool = member(run, "tool");
    const json* driver = tool ? member(*tool, "driver") : nullptr;
    return driver && driver->is_object();
  });
}

}  // namespace

bool mergeSarif(const std::vector<json>& documents, const std::vector<std::string>& names,
                json& merged, std::string& error) {
  std::vector<std::string> group_order;
  std::map<std::string, RunMerger> groups;
  std::string schema;
  for (std::size_t i = 0; i < documents.size(); ++i) {
    const json& document = documents[i];
    if (!isSarifLog(document)) {
      error = (i < names.size() ? names[i] : "input " + std::to_string(i + 1)) +
              ": not a SARIF 2.1.0 log (expected \"version\": \"2.1.0\" and \"runs\" with a "
              "tool driver each)";
      return false;
    }
    if (schema.empty()) schema = stringMember(document, "$schema");
    for (const json& run : document["runs"]) {
      std::string key = runGroupKey(run);
      auto it = groups.find(key);
      if (it == groups.end()) {
        it = groups.emplace(key, RunMerger(run)).first;
        group_order.push_back(key);
      }
      it->second.add(run);
    }
  }
  json runs = json::array();
  for (const std::string& key : group_order) runs.push_back(groups.at(key).finish());
  merged = {{"$schema", schema.empty() ? kDefaultSchema : schema},
            {"version", "2.1.0"},
            {"runs", std::move(runs)}};
  return true;
}

int runMergeCommand(const std::vector<std::string>& inputs, const std::string& output,
                    std::ostream& out, std::ostream& err) {
  std::vector<json> documents;
  for (const std::string& input : inputs) {
    std::string text;
    std::string error;
    if (!readRegularFile(input, kMaxSarifBytes, text, error)) {
      err << "graphsafe: error: " << input << ": " << error << "\n";
      return 2;
    }
    json document = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (document.is_discarded()) {
      err << "graphsafe: error: " << input << ": not valid JSON\n";
      return 2;
    }
    documents.push_back(std::move(document));
  }
  json merged;
  std::string error;
  if (!mergeSarif(documents, inputs, merged, error)) {
    err << "graphsafe: error: " << error << "\n";
    return 2;
  }
  std::string text = merged.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  if (output.empty()) {
    out << text;
    out.flush();
    return 0;
  }
  // The working directory (often a checkout) and its repository: no link there leads the
  // merged report out of them (atomic_write.h).
  if (!writeFileAtomically(output, text, error, LinkBoundary{analyzedTrees({})})) {
    err << "graphsafe: error: " << error << "\n";
    return 2;
  }
  return 0;
}

}  // namespace graphsafe
