// JSON Lines: the JSON format's finding and notice objects, one per line, each with a "kind",
// for tools that stream or grep results instead of reading one document.
#include "analyzer/output/output_common.h"
#include "analyzer/output/output_format.h"

namespace graphsafe {

void writeJsonLines(const RunResult& result, std::ostream& out) {
  auto write = [&out](nlohmann::json line, const char* kind) {
    line["kind"] = kind;
    out << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  };
  for (const Diagnostic& diagnostic : result.diagnostics) {
    write(diagnosticToJson(diagnostic), "diagnostic");
  }
  for (const Notice& notice : result.notices) write(noticeToJson(notice), "notice");
}

}  // namespace graphsafe
