#pragma once

// A hand-built RunResult for the output format tests: two files, a finding with a call path,
// a help line and a fix, a warning, and two notices. The finding's line has a tab, a two-byte
// and a four-byte character before its range, so byte, code-point and UTF-16 columns differ.

#include <memory>
#include <string>

#include "analyzer/engine/engine.h"

namespace graphsafe::testing {

inline SourceRange rangeOfText(const SourceFile& file, std::string_view needle,
                               std::size_t from = 0) {
  std::size_t at = file.text().find(needle, from);
  return file.rangeOf(static_cast<std::uint32_t>(at),
                      static_cast<std::uint32_t>(at + needle.size()));
}

inline RunResult sampleResult() {
  auto train =
      std::make_shared<const SourceFile>("src/train.py",
                                         "import torch\n"
                                         "from helpers import report\n"
                                         "\n"
                                         "with torch.cuda.graph(g):\n"
                                         "    out = model(x)\n"
                                         "\tv = \"\xc3\xa9\xf0\x9f\x98\x80\" + str(loss.item())\n"
                                         "    if flag:\n"
                                         "        pass\n");
  auto helpers = std::make_shared<const SourceFile>("src/helpers.py",
                                                    "def report(t):\n"
                                                    "    print(t.sum())\n");
  RunResult result;

  Diagnostic sync;
  sync.rule_id = "GS401";
  sync.rule_name = "host-sync";
  sync.severity = Severity::kError;
  sync.file = train;
  sync.range = rangeOfText(*train, "loss.item()");
  sync.message = "`.item()` copies a device value to the host, which capture does not allow";
  sync.help = "keep the value on the device, or read it after replay()";
  sync.related.push_back(
      {train, rangeOfText(*train, "torch.cuda.graph(g)"), "capture region starts here"});
  sync.related.push_back(
      {helpers, rangeOfText(*helpers, "report"), "reached through this call: report()"});
  Fix fix;
  fix.description = "drop the host copy";
  fix.edits.push_back({rangeOfText(*train, "str(loss.item())"), "loss"});
  sync.fix = fix;

  Diagnostic branch;
  branch.rule_id = "GS102";
  branch.rule_name = "frozen-branch";
  branch.severity = Severity::kWarning;
  branch.file = train;
  branch.range = rangeOfText(*train, "flag");
  branch.message = "branch on `flag`, a host value that can change between replays";

  Diagnostic print;
  print.rule_id = "GS401";
  print.rule_name = "host-sync";
  print.severity = Severity::kError;
  print.file = helpers;
  print.range = rangeOfText(*helpers, "print(t.sum())");
  print.message = "printing a tensor waits for the device";

  result.diagnostics = {print, sync, branch};
  result.notices.push_back({"src/broken.py", 2, "syntax error: unexpected indent"});
  result.notices.push_back({"data/blob.py", -1, "skipped: binary file (contains NUL bytes)"});
  result.files_analyzed = 5;
  result.suppressed = 1;
  return result;
}

}  // namespace graphsafe::testing
