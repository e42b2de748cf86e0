// SARIF 2.1.0, as GitHub code scanning reads it: the whole catalog as the driver's rules, one
// result per finding with its call path as a code flow, stable fingerprints, and the run's
// notices as tool execution notifications. Columns are UTF-16 code units (columnKind).
#include <cstdio>
#include <map>
#include <tuple>

#include "analyzer/baseline/baseline.h"
#include "analyzer/catalog/rule_catalog.h"
#include "analyzer/output/output_common.h"
#include "analyzer/output/output_format.h"

namespace graphsafe {

namespace {

using nlohmann::json;

constexpr const char* kSarifSchema = "https://json.schemastore.org/sarif-2.1.0.json";
constexpr const char* kSourceRoot = "%SRCROOT%";

// RFC 3986: everything but unreserved characters and the path separator is percent-encoded.
std::string percentEncode(std::string_view path) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (char c : path) {
    auto byte = static_cast<unsigned char>(c);
    bool plain = (byte >= 'A' && byte <= 'Z') || (byte >= 'a' && byte <= 'z') ||
                 (byte >= '0' && byte <= '9') || c == '-' || c == '.' || c == '_' || c == '~' ||
                 c == '/';
    if (plain) {
      out += c;
    } else {
      out += '%';
      out += hex[byte >> 4];
      out += hex[byte & 0xF];
    }
  }
  return out;
}

// The project's home page: the rule pages' URL up to its docs/ folder.
std::string informationUri() {
  const auto& rules = RuleCatalog::instance().rules();
  if (!rules.empty()) {
    std::string url = rules.front().docsUrl();
    for (const char* cut : {"/blob/", "/tree/", "/docs/"}) {
      std::size_t at = url.find(cut);
      if (at != std::string::npos) return url.substr(0, at);
    }
  }
  return "https://github.com/graphsafe/graphsafe";
}

class SarifWriter {
 public:
  explicit SarifWriter(std::string working_directory)
      : cwd_(working_directory.empty() ? currentDirectory() : std::move(working_directory)) {}

  json document(const RunResult& result) {
    json tool_driver = driver();  // first: it numbers the rules that results refer to
    json results = json::array();
    for (const Diagnostic& diagnostic : result.diagnostics) results.push_back(resultOf(diagnostic));
    json notifications = json::array();
    for (const Notice& notice : result.notices) notifications.push_back(notification(notice));
    // Code the analysis skipped or cut short: the run did not do what it was asked, and code
    // scanning must not take its silence for a pass.
    const Incompleteness incomplete = incompleteness(result);
    const bool complete = incomplete.files + incomplete.notices == 0;

    json run = {
        {"tool", {{"driver", std::move(tool_driver)}}},
        {"results", std::move(results)},
        {"columnKind", "utf16CodeUnits"},
        {"invocations", json::array({{{"executionSuccessful", complete},
                                      {"toolExecutionNotifications", std::move(notifications)}}})},
    };
    if (!cwd_.empty()) {
      std::string root = "file://" + percentEncode(cwd_);
      if (root.back() != '/') root += '/';
      run["originalUriBaseIds"] = {{kSourceRoot, {{"uri", root}}}};
    }
    return {{"$schema", kSarifSchema}, {"version", "2.1.0"}, {"runs", json::array({run})}};
  }

 private:
  json driver() {
    json rules = json::array();
    const auto& catalog = RuleCatalog::instance().rules();
    for (std::size_t i = 0; i < catalog.size(); ++i) {
      rule_index_[catalog[i].id] = i;
      rules.push_back(ruleDescriptor(catalog[i]));
    }
    return {{"name", "graphsafe"},
            {"version", GRAPHSAFE_VERSION},
            {"semanticVersion", GRAPHSAFE_VERSION},
            {"informationUri", informationUri()},
            {"rules", std::move(rules)}};
  }

  static json ruleDescriptor(const RuleInfo& rule) {
    std::string fence =
        rule.languages.empty() || rule.languages.front() == "python" ? "python" : "cpp";
    std::string text = rule.summary + "\n\n" + rule.rationale + "\n\nFix: " + rule.fix;
    std::string markdown =
        "**" + rule.id + " " + rule.name + "**: " + rule.summary + "\n\n" + rule.rationale + "\n\n";
    if (!rule.bad.empty()) markdown += "Bad:\n\n```" + fence + "\n" + rule.bad + "\n```\n\n";
    if (!rule.good.empty()) markdown += "Good:\n\n```" + fence + "\n" + rule.good + "\n```\n\n";
    markdown += "Fix: " + rule.fix + "\n\n[Rule page](" + rule.docsUrl() + ")";
    json tags = json::array({"cuda-graphs", rule.family});
    for (const std::string& language : rule.languages) tags.push_back(language);
    return {{"id", rule.id},
            {"name", rule.name},
            {"shortDescription", {{"text", rule.summary}}},
            {"fullDescription", {{"text", rule.rationale.empty() ? rule.summary : rule.rationale}}},
            {"help", {{"text", text}, {"markdown", markdown}}},
            {"helpUri", rule.docsUrl()},
            {"defaultConfiguration", {{"level", severityName(rule.severity)}}},
            {"properties",
             {{"tags", std::move(tags)}, {"problem.severity", severityName(rule.severity)}}}};
  }

  json artifactLocation(const std::string& path) const {
    std::string inside = pathInside(path, cwd_);
    if (!inside.empty()) return {{"uri", percentEncode(inside)}, {"uriBaseId", kSourceRoot}};
    return {{"uri", "file://" + percentEncode(absolutePathFrom(path, cwd_))}};
  }

  static json region(const SourceFile* file, const SourceRange& range) {
    Position start = oneBasedPosition(file, range.start, ColumnUnit::kUtf16);
    Position end = oneBasedPosition(file, range.stop, ColumnUnit::kUtf16);
    return {{"startLine", start.line},
            {"startColumn", start.column},
            {"endLine", end.line},
            {"endColumn", end.column}};
  }

  json physicalLocation(const SourceFile* file, const SourceRange& range) const {
    return {{"artifactLocation", artifactLocation(file ? file->path() : "")},
            {"region", region(file, range)}};
  }

  // GitHub's own shape for this fingerprint: a hash of the rule and the line's text with
  // whitespace removed (the baseline's, lineFingerprint()), then ":" and the occurrence of that
  // pair in the file. Moving code around keeps an alert's identity; editing its line gives a new
  // one.
  std::string lineHash(const Diagnostic& diagnostic) {
    // Once per file, line and rule: thousands of findings on one long line (a minified file)
    // hash the line once, not once each.
    const std::uint64_t hash = fingerprints_.hash(diagnostic);
    std::size_t occurrence = ++occurrences_[{diagnostic.file ? diagnostic.path() : "", hash}];
    char text[48];
    std::snprintf(text, sizeof text, "%016llx:%zu", static_cast<unsigned long long>(hash),
                  occurrence);
    return text;
  }

  json resultOf(const Diagnostic& diagnostic) {
    const SourceFile* file = diagnostic.file.get();
    json result = {
        {"ruleId", diagnostic.rule_id},
        {"level", severityName(diagnostic.severity)},
        {"message", {{"text", diagnostic.message}}},
        {"locations",
         json::array({{{"physicalLocation", physicalLocation(file, diagnostic.range)}}})},
    };
    auto index = rule_index_.find(diagnostic.rule_id);
    if (index != rule_index_.end()) result["ruleIndex"] = index->second;

    if (!diagnostic.related.empty()) {
      json related = json::array();
      json flow = json::array();
      for (std::size_t i = 0; i < diagnostic.related.size(); ++i) {
        const RelatedLocation& location = diagnostic.related[i];
        const SourceFile* related_file = location.file ? location.file.get() : file;
        json physical = physicalLocation(related_file, location.range);
        related.push_back(
            {{"id", i}, {"physicalLocation", physical}, {"message", {{"text", location.message}}}});
        flow.push_back({{"location",
                         {{"physicalLocation", std::move(physical)},
                          {"message", {{"text", location.message}}}}}});
      }
      // The path ends at the finding itself.
      flow.push_back({{"location",
                       {{"physicalLocation", physicalLocation(file, diagnostic.range)},
                        {"message", {{"text", diagnostic.message}}}}}});
      result["relatedLocations"] = std::move(related);
      result["codeFlows"] =
          json::array({{{"threadFlows", json::array({{{"locations", std::move(flow)}}})}}});
    }

    result["partialFingerprints"] = {{"primaryLocationLineHash", lineHash(diagnostic)}};

    if (diagnostic.fix) {
      json replacements = json::array();
      for (const TextEdit& edit : diagnostic.fix->edits) {
        replacements.push_back({{"deletedRegion", region(file, edit.range)},
                                {"insertedContent", {{"text", edit.replacement}}}});
      }
      result["fixes"] = json::array(
          {{{"description", {{"text", diagnostic.fix->description}}},
            {"artifactChanges",
             json::array({{{"artifactLocation", artifactLocation(file ? file->path() : "")},
                           {"replacements", std::move(replacements)}}})}}});
    }
    return result;
  }

  json notification(const Notice& notice) const {
    json entry = {{"level", notice.incomplete ? "error" : "warning"},
                  {"message", {{"text", notice.message}}}};
    if (!notice.path.empty()) {
      json physical = {{"artifactLocation", artifactLocation(notice.path)}};
      if (notice.line >= 0) physical["region"] = {{"startLine", notice.line + 1}};
      entry["locations"] = json::array({{{"physicalLocation", std::move(physical)}}});
    }
    return entry;
  }

  std::string cwd_;
  LineFingerprints fingerprints_;
  std::map<std::string, std::size_t> rule_index_;
  std::map<std::tuple<std::string, std::uint64_t>, std::size_t> occurrences_;
};

}  // namespace

void writeSarif(const RunResult& result, std::ostream& out, const OutputOptions& options) {
  SarifWriter writer(options.working_directory);
  out << writer.document(result).dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

}  // namespace graphsafe
