// PyTorch's lintrunner runs linters through adapters that print one LintMessage per line as
// JSON: path, line, char, code (the linter: "GRAPHSAFE"), severity (error, warning, advice,
// disabled), name (the rule), original and replacement (the whole file, for a patch), and
// description. Lines and characters are 1-based.
#include <algorithm>

#include "analyzer/output/output_common.h"
#include "analyzer/output/output_format.h"

namespace graphsafe {

namespace {

using nlohmann::json;

// The file's text with the fix's edits applied (edits must not overlap; they are applied from
// the last to the first so that offsets stay valid).
std::optional<std::string> applyFix(const SourceFile& file, const Fix& fix) {
  std::vector<TextEdit> edits = fix.edits;
  std::sort(edits.begin(), edits.end(),
            [](const TextEdit& a, const TextEdit& b) { return a.range.begin > b.range.begin; });
  std::string text = file.text();
  std::uint32_t limit = static_cast<std::uint32_t>(text.size());
  for (const TextEdit& edit : edits) {
    if (edit.range.end < edit.range.begin || edit.range.end > limit) return std::nullopt;
    text.replace(edit.range.begin, edit.range.end - edit.range.begin, edit.replacement);
    limit = edit.range.begin;
  }
  return text;
}

void writeLine(std::ostream& out, const json& message) {
  out << message.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
}

}  // namespace

void writeLintrunner(const RunResult& result, std::ostream& out) {
  for (const Notice& notice : result.notices) {
    writeLine(out, {{"path", notice.path.empty() ? json(nullptr) : json(notice.path)},
                    {"line", notice.line >= 0 ? json(notice.line + 1) : json(nullptr)},
                    {"char", nullptr},
                    {"code", "GRAPHSAFE"},
                    {"severity", "advice"},
                    {"name", "notice"},
                    {"original", nullptr},
                    {"replacement", nullptr},
                    {"description", notice.message}});
  }
  for (const Diagnostic& diagnostic : result.diagnostics) {
    const SourceFile* file = diagnostic.file.get();
    Position start = oneBasedPosition(file, diagnostic.range.start, ColumnUnit::kCodePoints);
    std::string description = diagnostic.rule_name + ": " + diagnostic.message;
    if (!diagnostic.help.empty()) description += "\nhelp: " + diagnostic.help;
    json original = nullptr;
    json replacement = nullptr;
    if (file != nullptr && diagnostic.fix && !diagnostic.fix->edits.empty()) {
      if (std::optional<std::string> fixed = applyFix(*file, *diagnostic.fix)) {
        original = file->text();
        replacement = *fixed;
      }
    }
    writeLine(out, {{"path", file ? json(file->path()) : json(nullptr)},
                    {"line", start.line},
                    {"char", start.column},
                    {"code", "GRAPHSAFE"},
                    {"severity", severityName(diagnostic.severity)},
                    {"name", diagnostic.rule_id},
                    {"original", std::move(original)},
                    {"replacement", std::move(replacement)},
                    {"description", std::move(description)}});
  }
}

}  // namespace graphsafe
