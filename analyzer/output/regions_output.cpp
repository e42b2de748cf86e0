// --show-regions: every capture site, what its captured work reaches, and the calls under it
// that the analysis could not follow, with why. Printed after the findings, on the same stream;
// names and the code's text go through the text output's escaping (output_common.h).
#include "analyzer/output/output_common.h"
#include "analyzer/output/output_format.h"

namespace graphsafe {

namespace {

std::string location(const SourceFilePtr& file, const SourceRange& range) {
  Position position = oneBasedPosition(file.get(), range.start, ColumnUnit::kCodePoints);
  return quotedName(file ? file->path() : std::string()) + ":" + std::to_string(position.line) +
         ":" + std::to_string(position.column);
}

}  // namespace

void writeRegions(const std::vector<RegionSummary>& regions, std::ostream& out, bool color) {
  const char* bold = color ? "\033[1m" : "";
  const char* reset = color ? "\033[0m" : "";
  std::size_t unresolved = 0;
  for (const RegionSummary& region : regions) unresolved += region.unresolved.size();
  out << bold << "Capture regions: " << regions.size() << " ("
      << plural(unresolved, "call", "calls") << " not followed)" << reset << "\n";
  for (const RegionSummary& region : regions) {
    out << location(region.file, region.site) << ": " << region.kind;
    if (!region.function.empty()) out << " in " << printableText(region.function);
    out << "\n";
    if (region.reaches.empty()) {
      out << "    reaches no other function\n";
    } else {
      out << "    reaches " << plural(region.reaches.size(), "function", "functions") << ":\n";
      for (const std::string& function : region.reaches) {
        out << "      " << printableText(function) << "\n";
      }
    }
    for (const UnresolvedCall& call : region.unresolved) {
      bool cut = false;
      out << "    not followed: " << location(call.file, call.range) << ": `"
          << printableText(boundedText(call.text, 200, cut)) << (cut ? "..." : "")
          << "`: " << printableText(call.reason) << "\n";
    }
  }
}

}  // namespace graphsafe
