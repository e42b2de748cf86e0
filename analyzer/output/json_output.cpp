// The JSON output: one document with every finding, notice and the run's counts.
// Schema: docs/output-formats.md. Positions are 1-based, columns in code points.
#include "analyzer/output/output_common.h"
#include "analyzer/output/output_format.h"

namespace graphsafe {

namespace {

// Version of the document's shape; raised when a field changes meaning or disappears.
constexpr int kJsonSchemaVersion = 1;

nlohmann::json relatedToJson(const RelatedLocation& related, const SourceFile* fallback) {
  const SourceFile* file = related.file ? related.file.get() : fallback;
  return {{"path", file ? file->path() : ""},
          {"range", rangeToJson(file, related.range, ColumnUnit::kCodePoints)},
          {"message", related.message}};
}

nlohmann::json fixToJson(const std::optional<Fix>& fix, const SourceFile* file) {
  if (!fix) return nullptr;
  nlohmann::json edits = nlohmann::json::array();
  for (const TextEdit& edit : fix->edits) {
    edits.push_back({{"range", rangeToJson(file, edit.range, ColumnUnit::kCodePoints)},
                     {"replacement", edit.replacement}});
  }
  return {{"description", fix->description}, {"edits", std::move(edits)}};
}

}  // namespace

nlohmann::json diagnosticToJson(const Diagnostic& diagnostic) {
  const SourceFile* file = diagnostic.file.get();
  nlohmann::json related = nlohmann::json::array();
  for (const RelatedLocation& location : diagnostic.related) {
    related.push_back(relatedToJson(location, file));
  }
  return {{"rule", diagnostic.rule_id},
          {"name", diagnostic.rule_name},
          {"severity", severityName(diagnostic.severity)},
          {"path", file ? file->path() : ""},
          {"range", rangeToJson(file, diagnostic.range, ColumnUnit::kCodePoints)},
          {"message", diagnostic.message},
          {"help", diagnostic.help},
          {"related", std::move(related)},
          {"fix", fixToJson(diagnostic.fix, file)}};
}

nlohmann::json noticeToJson(const Notice& notice) {
  return {{"path", notice.path},
          {"line", notice.line >= 0 ? nlohmann::json(notice.line + 1) : nlohmann::json(nullptr)},
          {"message", notice.message},
          {"incomplete", notice.incomplete}};
}

nlohmann::json regionToJson(const RegionSummary& region) {
  nlohmann::json unresolved = nlohmann::json::array();
  for (const UnresolvedCall& call : region.unresolved) {
    unresolved.push_back({{"path", call.file ? call.file->path() : ""},
                          {"range", rangeToJson(call.file.get(), call.range, ColumnUnit::kCodePoints)},
                          {"text", call.text},
                          {"reason", call.reason}});
  }
  return {{"path", region.file ? region.file->path() : ""},
          {"range", rangeToJson(region.file.get(), region.site, ColumnUnit::kCodePoints)},
          {"kind", region.kind},
          {"function", region.function},
          {"reaches", region.reaches},
          {"unresolved", std::move(unresolved)}};
}

void writeJson(const RunResult& result, std::ostream& out) {
  nlohmann::json diagnostics = nlohmann::json::array();
  for (const Diagnostic& diagnostic : result.diagnostics) {
    diagnostics.push_back(diagnosticToJson(diagnostic));
  }
  nlohmann::json notices = nlohmann::json::array();
  for (const Notice& notice : result.notices) notices.push_back(noticeToJson(notice));
  nlohmann::json regions = nlohmann::json::array();
  for (const RegionSummary& region : result.regions) regions.push_back(regionToJson(region));
  FindingCounts counts = countFindings(result);
  Incompleteness incomplete = incompleteness(result);
  nlohmann::json document = {
      {"version", GRAPHSAFE_VERSION},
      {"schema", kJsonSchemaVersion},
      {"diagnostics", std::move(diagnostics)},
      {"notices", std::move(notices)},
      {"regions", std::move(regions)},
      {"summary",
       {{"files", result.files_analyzed},
        {"errors", counts.errors},
        {"warnings", counts.warnings},
        {"suppressed", result.suppressed},
        {"skipped", incomplete.files},
        {"incomplete", incomplete.notices}}},
  };
  // Replace invalid UTF-8 instead of throwing: output must never abort the run.
  out << document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace graphsafe
