#include "analyzer/output/output_format.h"

#include <array>
#include <utility>

namespace graphsafe {

namespace {

constexpr std::array<std::pair<OutputFormat, std::string_view>, 9> kFormatNames = {{
    {OutputFormat::kText, "text"},
    {OutputFormat::kConcise, "concise"},
    {OutputFormat::kJson, "json"},
    {OutputFormat::kSarif, "sarif"},
    {OutputFormat::kGithub, "github"},
    {OutputFormat::kGitlab, "gitlab"},
    {OutputFormat::kJunit, "junit"},
    {OutputFormat::kLintrunner, "lintrunner"},
    {OutputFormat::kJsonLines, "json-lines"},
}};

}  // namespace

std::optional<OutputFormat> parseOutputFormat(std::string_view name) {
  for (const auto& [format, format_name] : kFormatNames) {
    if (format_name == name) return format;
  }
  return std::nullopt;
}

const char* outputFormatName(OutputFormat format) {
  for (const auto& [candidate, name] : kFormatNames) {
    if (candidate == format) return name.data();
  }
  return "text";
}

void writeResult(OutputFormat format, const RunResult& result, std::ostream& out,
                 std::ostream& status, const OutputOptions& options) {
  switch (format) {
    case OutputFormat::kText:
      writeText(result, out, status, options);
      return;
    case OutputFormat::kConcise:
      writeConcise(result, out, status, options);
      return;
    case OutputFormat::kJson:
      writeJson(result, out);
      return;
    case OutputFormat::kSarif:
      writeSarif(result, out, options);
      return;
    case OutputFormat::kGithub:
      writeGithub(result, out);
      return;
    case OutputFormat::kGitlab:
      writeGitlab(result, out, options);
      return;
    case OutputFormat::kJunit:
      writeJunit(result, out);
      return;
    case OutputFormat::kLintrunner:
      writeLintrunner(result, out);
      return;
    case OutputFormat::kJsonLines:
      writeJsonLines(result, out);
      return;
  }
}

}  // namespace graphsafe
