#pragma once

// The output formats of `graphsafe check`. Each writes a whole RunResult to a stream; the
// implementation of each lives in its own file (text_output.cpp, json_output.cpp, ...).

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/engine/engine.h"

namespace graphsafe {

enum class OutputFormat {
  kText,
  kConcise,
  kJson,
  kSarif,
  kGithub,
  kGitlab,      // GitLab code quality (Code Climate JSON)
  kJunit,       // JUnit XML
  kLintrunner,  // PyTorch lintrunner: one LintMessage JSON object per line
  kJsonLines,   // one JSON object per finding or notice, one per line
};

std::optional<OutputFormat> parseOutputFormat(std::string_view name);
const char* outputFormatName(OutputFormat format);

struct OutputOptions {
  bool color = false;         // ANSI colors in text and concise output
  bool status_color = false;  // ANSI colors in what goes to the status stream (notices)
  bool quiet = false;         // no summary line
  // Paths in SARIF are made relative to this directory; empty = the current directory.
  std::string working_directory;
};

// Text and concise: findings and the summary go to `out`; notices and the "nothing found" line
// go to `status` (stderr), so that a clean run prints nothing on stdout.
void writeText(const RunResult& result, std::ostream& out, std::ostream& status,
               const OutputOptions& options);
void writeConcise(const RunResult& result, std::ostream& out, std::ostream& status,
                  const OutputOptions& options);
// Notices as `path:line: notice: message`, one per line.
void writeNotices(const std::vector<Notice>& notices, std::ostream& out, bool color);

// Machine formats: the notices are part of the document. Schemas: docs/output-formats.md.
void writeJson(const RunResult& result, std::ostream& out);
void writeSarif(const RunResult& result, std::ostream& out, const OutputOptions& options);
// GitHub Actions workflow commands (::error / ::warning / ::notice).
void writeGithub(const RunResult& result, std::ostream& out);

// GitLab code quality report: a JSON array of Code Climate issues with paths relative to the
// working directory and a fingerprint per finding.
void writeGitlab(const RunResult& result, std::ostream& out, const OutputOptions& options);
// JUnit XML: one failing test case per finding (one passing case for a clean run).
void writeJunit(const RunResult& result, std::ostream& out);
// lintrunner's LintMessage, one per line: path, line, char, code "GRAPHSAFE", severity, name,
// original, replacement, description. A finding with a safe fix carries the whole file before
// and after it, which is how lintrunner applies patches.
void writeLintrunner(const RunResult& result, std::ostream& out);
// One JSON object per line: {"kind": "diagnostic", ...the JSON format's fields} or
// {"kind": "notice", ...}.
void writeJsonLines(const RunResult& result, std::ostream& out);

// --show-regions: every capture site, the functions it reaches and the calls not followed.
void writeRegions(const std::vector<RegionSummary>& regions, std::ostream& out, bool color);

// --statistics: one line per rule with findings (count, ID, name), most frequent first; a JSON
// array of {code, name, severity, count} when `json` is set.
void writeStatistics(const RunResult& result, std::ostream& out, bool json);

// Any format, by name; `status` receives what the format sends to stderr.
void writeResult(OutputFormat format, const RunResult& result, std::ostream& out,
                 std::ostream& status, const OutputOptions& options);

}  // namespace graphsafe
