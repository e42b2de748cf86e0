// GitLab code quality: the Code Climate issue format as GitLab reads it (an artifact declared
// as `reports: codequality`). GitLab needs description, check_name, fingerprint, severity and
// location.path with location.lines.begin; paths are relative to the repository root, which
// is the job's working directory. The widget shows the description alone, so it carries the
// why on its one line: the capture site and the call path; content.body has them one per line
// with the help.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "analyzer/baseline/baseline.h"
#include "analyzer/output/call_path_lines.h"
#include "analyzer/output/output_common.h"
#include "analyzer/output/output_format.h"

namespace graphsafe {

namespace {

// Code Climate severities: info, minor, major, critical, blocker.
const char* codeClimateSeverity(Severity severity) {
  return severity == Severity::kError ? "critical" : "major";
}

// The description is one line in the merge request's widget: a few notes fit; the body, shown
// when an issue is opened, takes the longer path.
constexpr std::size_t kDescriptionPathLines = 6;
constexpr std::size_t kBodyPathLines = 12;

std::string describe(const Diagnostic& diagnostic) {
  std::string description =
      diagnostic.rule_id + " " + diagnostic.rule_name + ": " + diagnostic.message;
  std::vector<std::string> lines = callPathLines(diagnostic, kDescriptionPathLines);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    description += (i == 0 ? " [" : "; ") + lines[i];
  }
  if (!lines.empty()) description += "]";
  return description;
}

// Markdown: the message, the path as a list, the help.
std::string body(const Diagnostic& diagnostic) {
  std::string text = diagnostic.message + "\n";
  std::vector<std::string> lines = callPathLines(diagnostic, kBodyPathLines);
  if (!lines.empty()) text += "\n";
  for (const std::string& line : lines) text += "- " + line + "\n";
  if (!diagnostic.help.empty()) text += "\nhelp: " + diagnostic.help + "\n";
  return text;
}

std::string hex64(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

// GitLab compares reports by fingerprint, so it must not depend on line numbers (a finding
// that moved is the same finding) and must be unique: path and occurrence are mixed in.
std::string fingerprint(const std::string& path, const std::string& line_fingerprint,
                        std::size_t occurrence) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  auto mix = [&hash](std::string_view bytes) {
    for (char c : bytes) {
      hash ^= static_cast<unsigned char>(c);
      hash *= 0x100000001b3ull;
    }
    hash *= 0x100000001b3ull;  // a NUL byte between the parts
  };
  mix(path);
  mix(line_fingerprint);
  mix(std::to_string(occurrence));
  return line_fingerprint + hex64(hash);
}

}  // namespace

void writeGitlab(const RunResult& result, std::ostream& out, const OutputOptions& options) {
  std::string cwd =
      options.working_directory.empty() ? currentDirectory() : options.working_directory;
  std::map<std::pair<std::string, std::string>, std::size_t> occurrences;
  nlohmann::json issues = nlohmann::json::array();
  for (const Diagnostic& diagnostic : result.diagnostics) {
    const SourceFile* file = diagnostic.file.get();
    std::string path = file ? file->path() : "";
    std::string inside = pathInside(path, cwd);
    if (!inside.empty()) path = inside;
    std::string line_hash = lineFingerprint(diagnostic);
    std::size_t occurrence = ++occurrences[{path, line_hash}];
    Position start = oneBasedPosition(file, diagnostic.range.start, ColumnUnit::kCodePoints);
    Position end = oneBasedPosition(file, diagnostic.range.stop, ColumnUnit::kCodePoints);
    nlohmann::json issue = {
        {"type", "issue"},
        {"engine_name", "graphsafe"},
        {"check_name", diagnostic.rule_id},
        {"description", describe(diagnostic)},
        {"categories", nlohmann::json::array({"Bug Risk"})},
        {"severity", codeClimateSeverity(diagnostic.severity)},
        {"fingerprint", fingerprint(path, line_hash, occurrence)},
        {"location",
         {{"path", path},
          {"lines", {{"begin", start.line}, {"end", end.line}}},
          {"positions",
           {{"begin", {{"line", start.line}, {"column", start.column}}},
            {"end", {{"line", end.line}, {"column", end.column}}}}}}},
    };
    issue["content"] = {{"body", body(diagnostic)}};
    issues.push_back(std::move(issue));
  }
  out << issues.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace graphsafe
