#include "analyzer/lsp/diagnostic_conversion.h"

#include "analyzer/catalog/rule_catalog.h"
#include "analyzer/lsp/document_store.h"

namespace graphsafe::lsp {

int lspSeverity(Severity severity) {
  return severity == Severity::kError ? 1 : 2;
}

nlohmann::json toLspDiagnostic(const Diagnostic& diagnostic, PositionEncoding encoding,
                               const UriOfPath& uri_of) {
  nlohmann::json range = diagnostic.file ? rangeJson(*diagnostic.file, diagnostic.range.begin,
                                                     diagnostic.range.end, encoding)
                                         : rangeJson(SourceFile("", ""), 0, 0, encoding);
  std::string message = diagnostic.message;
  if (!diagnostic.help.empty()) message += "\nhelp: " + diagnostic.help;
  nlohmann::json lsp = {{"range", std::move(range)},
                        {"severity", lspSeverity(diagnostic.severity)},
                        {"code", diagnostic.rule_id},
                        {"source", "graphsafe"},
                        {"message", std::move(message)}};
  if (const RuleInfo* rule = RuleCatalog::instance().find(diagnostic.rule_id)) {
    lsp["codeDescription"] = {{"href", rule->docsUrl()}};
  }
  nlohmann::json related = nlohmann::json::array();
  for (const RelatedLocation& location : diagnostic.related) {
    const SourceFilePtr& file = location.file ? location.file : diagnostic.file;
    if (!file) continue;
    related.push_back(
        {{"location",
          {{"uri", uri_of(file->path())},
           {"range", rangeJson(*file, location.range.begin, location.range.end, encoding)}}},
         {"message", location.message}});
  }
  if (!related.empty()) lsp["relatedInformation"] = std::move(related);
  lsp["data"] = {{"rule", diagnostic.rule_id}, {"name", diagnostic.rule_name}};
  return lsp;
}

nlohmann::json noticeToLspDiagnostic(const Notice& notice, const SourceFile& file,
                                     PositionEncoding encoding) {
  auto line = static_cast<std::uint32_t>(notice.line < 0 ? 0 : notice.line);
  std::uint32_t begin = file.offsetAt({line, 0});
  std::uint32_t end = begin + static_cast<std::uint32_t>(file.line(line).size());
  return {{"range", rangeJson(file, begin, end, encoding)},
          {"severity", 3},
          {"source", "graphsafe"},
          {"message", notice.message}};
}

}  // namespace graphsafe::lsp
