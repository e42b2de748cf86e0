// Suppression comments on arbitrary bytes: each line as one comment through the parser, then
// all of them as one file's comments through Suppressions, queried for a few rules. Checks that
// parsing is deterministic and that whatever a comment suppresses, it names (or is a blanket
// ignore): a finding is never hidden by a comment that is not a suppression.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/engine/suppressions.h"
#include "analyzer/source/source_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphsafe;
  std::string_view input(reinterpret_cast<const char*>(data), size);

  FileModel file;
  file.source = std::make_shared<const SourceFile>("fuzz.py", std::string(input));
  std::uint32_t line = 0;
  bool any_suppression = false;
  while (!input.empty()) {
    std::size_t end = input.find('\n');
    std::string_view comment = input.substr(0, end);
    ParsedSuppression first;
    ParsedSuppression second;
    bool parsed = parseSuppressionComment(comment, first);
    if (parseSuppressionComment(comment, second) != parsed) std::abort();
    if (parsed && (first.codes != second.codes || first.whole_file != second.whole_file ||
                   first.next_line != second.next_line)) {
      std::abort();
    }
    any_suppression = any_suppression || parsed;
    file.comments.push_back({line, 0, std::string(comment)});
    if (end == std::string_view::npos) break;
    input.remove_prefix(end + 1);
    ++line;
  }

  std::vector<Notice> notices;
  Suppressions suppressions = Suppressions::parse(file, notices);
  for (std::string_view rule : {"GS101", "GS301", "GS401", "GS999"}) {
    for (std::uint32_t at = 0; at <= line + 1; ++at) {
      if (suppressions.suppresses(rule, at) && !any_suppression) std::abort();
    }
  }
  return 0;
}
