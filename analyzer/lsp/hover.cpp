#include "analyzer/lsp/hover.h"

#include <string>

#include "analyzer/catalog/rule_catalog.h"
#include "analyzer/catalog/rule_page.h"
#include "analyzer/lsp/document_store.h"
#include "analyzer/lsp/hover_page.h"

namespace graphsafe::lsp {

namespace {

bool isCodeChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

std::string rulePage(const RuleInfo& rule, bool markdown) {
  return markdown ? hoverMarkdown(rule) : renderRulePage(rule);
}

// The rules a code names: one rule, or every rule of a prefix (`GS4`).
std::vector<const RuleInfo*> rulesOf(std::string_view code) {
  std::vector<const RuleInfo*> found;
  if (const RuleInfo* exact = RuleCatalog::instance().find(code)) {
    found.push_back(exact);
    return found;
  }
  for (const RuleInfo& rule : RuleCatalog::instance().rules()) {
    if (rule.id.starts_with(code)) found.push_back(&rule);
  }
  return found;
}

nlohmann::json hoverResult(std::string text, bool markdown, const SourceFile& file,
                           std::uint32_t begin, std::uint32_t end, PositionEncoding encoding) {
  return {{"contents", {{"kind", markdown ? "markdown" : "plaintext"}, {"value", std::move(text)}}},
          {"range", rangeJson(file, begin, end, encoding)}};
}

// A GS code under the cursor inside a suppression comment.
nlohmann::json suppressionCodeHover(const SourceFile& file, std::uint32_t offset, bool markdown,
                                    PositionEncoding encoding) {
  SourcePoint point = file.pointAt(offset);
  std::string_view line = file.line(point.line);
  std::uint32_t line_start = file.offsetAt({point.line, 0});
  std::size_t column = std::min<std::size_t>(point.column, line.size());
  std::size_t begin = column;
  while (begin > 0 && isCodeChar(line[begin - 1])) --begin;
  std::size_t end = column;
  while (end < line.size() && isCodeChar(line[end])) ++end;
  std::string_view code = line.substr(begin, end - begin);
  if (code.size() < 3 || !code.starts_with("GS") || code[2] < '0' || code[2] > '9') {
    return nullptr;
  }
  std::string_view before = line.substr(0, begin);
  std::size_t comment = before.find('#');
  if (comment == std::string_view::npos) comment = before.find("//");
  if (comment == std::string_view::npos) return nullptr;
  std::string_view directive = before.substr(comment);
  bool suppression = directive.find("graphsafe:") != std::string_view::npos ||
                     directive.find("noqa") != std::string_view::npos ||
                     directive.find("NOQA") != std::string_view::npos ||
                     directive.find("NOLINT") != std::string_view::npos;
  if (!suppression) return nullptr;
  std::vector<const RuleInfo*> rules = rulesOf(code);
  std::string text;
  if (rules.empty()) {
    text = std::string(code) + ": no rule has this code (see `graphsafe rules`)";
  } else if (rules.size() == 1) {
    text = rulePage(*rules.front(), markdown);
  } else {
    text = std::string(code) + " suppresses every rule whose ID starts with it:\n\n";
    for (const RuleInfo* rule : rules) {
      text += (markdown ? "- **" + rule->id + "** " : "- " + rule->id + " ") + rule->name + ": " +
              rule->summary + "\n";
    }
  }
  return hoverResult(std::move(text), markdown, file,
                     line_start + static_cast<std::uint32_t>(begin),
                     line_start + static_cast<std::uint32_t>(end), encoding);
}

}  // namespace

nlohmann::json hoverAt(const SourceFile& file, const std::vector<Diagnostic>& diagnostics,
                       std::uint32_t offset, bool markdown, PositionEncoding encoding) {
  std::string text;
  std::uint32_t begin = offset;
  std::uint32_t end = offset;
  bool found = false;
  for (const Diagnostic& diagnostic : diagnostics) {
    if (offset < diagnostic.range.begin || offset > diagnostic.range.end) continue;
    if (!found) {
      begin = diagnostic.range.begin;
      end = diagnostic.range.end;
    }
    found = true;
    if (!text.empty()) text += markdown ? "\n\n---\n\n" : "\n\n";
    std::string heading =
        diagnostic.rule_id + " " + diagnostic.rule_name + ": " + diagnostic.message;
    text += markdown ? "**" + diagnostic.rule_id + " " + diagnostic.rule_name +
                           "**: " + diagnostic.message + "\n\n"
                     : heading + "\n\n";
    if (const RuleInfo* rule = RuleCatalog::instance().find(diagnostic.rule_id)) {
      text += rulePage(*rule, markdown);
    }
  }
  if (found) return hoverResult(std::move(text), markdown, file, begin, end, encoding);
  return suppressionCodeHover(file, offset, markdown, encoding);
}

}  // namespace graphsafe::lsp
