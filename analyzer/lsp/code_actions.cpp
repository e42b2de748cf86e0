#include "analyzer/lsp/code_actions.h"

#include <set>

#include "analyzer/engine/fix_application.h"
#include "analyzer/engine/suppressions.h"
#include "analyzer/lsp/document_store.h"

namespace graphsafe::lsp {

namespace {

bool isPython(const std::string& path) {
  return path.ends_with(".py") || path.ends_with(".pyi");
}

// The byte column where the line's comment starts, skipping string literals; npos if none.
std::size_t commentStart(std::string_view line, bool python) {
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quote != 0) {
      if (c == '\\') {
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
    } else if (python && c == '#') {
      return i;
    } else if (!python && c == '/' && i + 1 < line.size() && line[i + 1] == '/') {
      return i;
    }
  }
  return std::string_view::npos;
}

nlohmann::json workspaceEdit(const std::string& uri, const SourceFile& file,
                             const std::vector<TextEdit>& edits, PositionEncoding encoding) {
  nlohmann::json changes = nlohmann::json::array();
  for (const TextEdit& edit : edits) {
    changes.push_back({{"range", rangeJson(file, edit.range.begin, edit.range.end, encoding)},
                       {"newText", edit.replacement}});
  }
  return {{"changes", {{uri, std::move(changes)}}}};
}

}  // namespace

std::optional<TextEdit> suppressionEdit(const SourceFile& file, std::uint32_t line,
                                        const std::string& rule_id) {
  if (line >= file.lineCount()) return std::nullopt;
  bool python = isPython(file.path());
  std::string_view text = file.line(line);
  std::uint32_t line_start = file.offsetAt({line, 0});
  std::size_t content_end = text.size();
  while (content_end > 0 && (text[content_end - 1] == ' ' || text[content_end - 1] == '\t')) {
    --content_end;
  }
  if (content_end > 0 && text[content_end - 1] == '\\') return std::nullopt;

  std::size_t comment = commentStart(text, python);
  if (comment != std::string_view::npos) {
    std::string_view comment_text = text.substr(comment, content_end - comment);
    // Our own directive with a code list: add the code to the list.
    std::size_t directive = comment_text.find("graphsafe:");
    ParsedSuppression parsed;
    if (directive != std::string_view::npos && parseSuppressionComment(comment_text, parsed) &&
        !parsed.whole_file && !parsed.next_line && !parsed.codes.empty()) {
      std::size_t open = comment_text.find('[', directive);
      std::size_t close = open == std::string_view::npos ? open : comment_text.find(']', open);
      if (close != std::string_view::npos) {
        auto at = static_cast<std::uint32_t>(line_start + comment + close);
        TextEdit edit;
        edit.range = file.rangeOf(at, at);
        edit.replacement = ", " + rule_id;
        return edit;
      }
    }
  }
  auto at = static_cast<std::uint32_t>(line_start + content_end);
  auto line_end = static_cast<std::uint32_t>(line_start + text.size());
  TextEdit edit;
  edit.range = file.rangeOf(at, line_end);
  std::string marker = python ? "#" : "//";
  edit.replacement =
      (content_end == 0 ? "" : "  ") + marker + " graphsafe: ignore[" + rule_id + "]";
  return edit;
}

ActionKinds requestedKinds(const nlohmann::json* only) {
  if (only == nullptr || !only->is_array() || only->empty()) return {};
  // A kind asked for covers the kinds below it: "source" covers "source.fixAll.graphsafe".
  auto covers = [](std::string_view asked, std::string_view kind) {
    return kind == asked || (kind.starts_with(asked) && kind[asked.size()] == '.');
  };
  ActionKinds kinds{false, false};
  for (const nlohmann::json& kind : *only) {
    if (!kind.is_string()) continue;
    const std::string& asked = kind.get_ref<const std::string&>();
    kinds.quick_fixes = kinds.quick_fixes || covers(asked, "quickfix");
    kinds.fix_all = kinds.fix_all || covers(asked, kFixAllKind);
  }
  return kinds;
}

nlohmann::json codeActionsFor(const std::string& uri, const std::vector<Diagnostic>& diagnostics,
                              std::uint32_t begin, std::uint32_t end, PositionEncoding encoding,
                              const UriOfPath& uri_of, ActionKinds kinds) {
  nlohmann::json actions = nlohmann::json::array();
  if (kinds.fix_all) {
    RunResult document;
    document.diagnostics = diagnostics;
    std::vector<FileFix> fixes = collectFixes(document);
    if (fixes.size() == 1) {
      nlohmann::json fixed = nlohmann::json::array();
      for (std::size_t index : fixes[0].diagnostics) {
        fixed.push_back(toLspDiagnostic(diagnostics[index], encoding, uri_of));
      }
      actions.push_back({{"title", "Apply every safe graphsafe fix in this file"},
                         {"kind", kFixAllKind},
                         {"diagnostics", std::move(fixed)},
                         {"edit", workspaceEdit(uri, *fixes[0].file, fixes[0].edits, encoding)}});
    }
  }
  if (!kinds.quick_fixes) return actions;
  // One suppression per rule and line, however many findings share them.
  std::set<std::pair<std::string, std::uint32_t>> offered;
  for (const Diagnostic& diagnostic : diagnostics) {
    if (!diagnostic.file) continue;
    bool touches = diagnostic.range.begin <= end && begin <= diagnostic.range.end;
    // A request for the whole line the finding is on counts too.
    SourcePoint first = diagnostic.file->pointAt(begin);
    SourcePoint last = diagnostic.file->pointAt(end);
    touches = touches || (first.line <= diagnostic.range.start.line &&
                          diagnostic.range.start.line <= last.line);
    if (!touches) continue;
    const SourceFile& file = *diagnostic.file;
    nlohmann::json lsp_diagnostic = toLspDiagnostic(diagnostic, encoding, uri_of);
    if (diagnostic.fix && !diagnostic.fix->edits.empty()) {
      actions.push_back(
          {{"title", diagnostic.fix->description.empty()
                         ? "Apply the fix for " + diagnostic.rule_id
                         : diagnostic.fix->description + " (" + diagnostic.rule_id + ")"},
           {"kind", "quickfix"},
           {"isPreferred", true},
           {"diagnostics", nlohmann::json::array({lsp_diagnostic})},
           {"edit", workspaceEdit(uri, file, diagnostic.fix->edits, encoding)}});
    }
    std::uint32_t line = diagnostic.range.start.line;
    if (!offered.emplace(diagnostic.rule_id, line).second) continue;
    std::optional<TextEdit> suppress = suppressionEdit(file, line, diagnostic.rule_id);
    if (!suppress) continue;
    actions.push_back({{"title", "Suppress " + diagnostic.rule_id + " on this line"},
                       {"kind", "quickfix"},
                       {"diagnostics", nlohmann::json::array({lsp_diagnostic})},
                       {"edit", workspaceEdit(uri, file, {*suppress}, encoding)}});
  }
  return actions;
}

}  // namespace graphsafe::lsp
