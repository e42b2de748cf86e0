#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analyzer/source/source_file.h"

namespace graphsafe {

enum class Severity : std::uint8_t { kError, kWarning };

const char* severityName(Severity severity);  // "error" / "warning"

// A location a diagnostic relates to: the capture site, each call on the path.
struct RelatedLocation {
  SourceFilePtr file;
  SourceRange range;
  std::string message;  // "capture region starts here", "reached through this call: helper(x)"
};

struct TextEdit {
  SourceRange range;
  std::string replacement;
};

// A fix is offered only where it cannot change meaning; `--fix` applies only those.
struct Fix {
  std::string description;  // "clone the output before keeping it"
  std::vector<TextEdit> edits;
};

struct Diagnostic {
  std::string rule_id;    // "GS401"
  std::string rule_name;  // "host-sync"
  Severity severity = Severity::kError;
  SourceFilePtr file;
  SourceRange range;
  std::string message;    // what is frozen or missing, and why
  std::string help;       // the one-line fix
  std::vector<RelatedLocation> related;  // capture site first, then each call on the path
  std::optional<Fix> fix;

  const std::string& path() const { return file->path(); }
};

// Orders diagnostics by path, position and rule: output is identical whatever -j says.
bool diagnosticLess(const Diagnostic& a, const Diagnostic& b);

}  // namespace graphsafe
