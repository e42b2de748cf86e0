// Incremental reparsing for the language server: the edit found between two texts, and an
// analysis that starts from the previous tree gives exactly what a fresh parse gives.
#include "frontends/python/incremental_trees.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/engine/engine.h"

namespace graphsafe::testing {
namespace {

using python::editBetween;
using python::IncrementalTrees;

TEST(EditBetween, FindsTheSmallestChangedSpan) {
  TSInputEdit insert = editBetween("a = 1\nb = 2\n", "a = 1\nc = 3\nb = 2\n");
  EXPECT_EQ(insert.start_byte, 6u);
  EXPECT_EQ(insert.old_end_byte, 6u);
  EXPECT_EQ(insert.new_end_byte, 12u);
  EXPECT_EQ(insert.start_point.row, 1u);
  EXPECT_EQ(insert.start_point.column, 0u);
  EXPECT_EQ(insert.new_end_point.row, 2u);

  TSInputEdit removal = editBetween("x.item()\n", "x()\n");
  EXPECT_EQ(removal.start_byte, 1u);
  EXPECT_EQ(removal.old_end_byte, 6u);
  EXPECT_EQ(removal.new_end_byte, 1u);

  TSInputEdit same = editBetween("same", "same");
  EXPECT_EQ(same.start_byte, same.old_end_byte);
  EXPECT_EQ(same.start_byte, same.new_end_byte);

  // A repeated character: prefix and suffix must not overlap.
  TSInputEdit repeated = editBetween("aaa", "aaaa");
  EXPECT_EQ(repeated.start_byte, 3u);
  EXPECT_EQ(repeated.old_end_byte, 3u);
  EXPECT_EQ(repeated.new_end_byte, 4u);
  TSInputEdit emptied = editBetween("abc", "");
  EXPECT_EQ(emptied.start_byte, 0u);
  EXPECT_EQ(emptied.old_end_byte, 3u);
  EXPECT_EQ(emptied.new_end_byte, 0u);
}

std::string readFixture(const char* name) {
  std::ifstream in(std::filesystem::path(GRAPHSAFE_SOURCE_DIR) / "fixtures" / "python" / name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> findings(const std::string& path, const std::string& text, bool reuse) {
  EngineOptions options;
  options.jobs = 1;
  options.settings.reuse_syntax_trees = reuse;
  RunResult result = analyzeSources({std::make_shared<SourceFile>(path, text)}, options);
  std::vector<std::string> out;
  for (const Diagnostic& d : result.diagnostics) {
    out.push_back(d.rule_id + ":" + std::to_string(d.range.start.line) + ":" +
                  std::to_string(d.range.start.column) + ":" + d.message);
  }
  for (const Notice& notice : result.notices) out.push_back("notice:" + notice.message);
  return out;
}

// Edits of every kind (insertions, deletions, replacements, a syntax error and its repair),
// applied one after another: each version analyzed from the previous tree equals a fresh parse.
TEST(IncrementalReparse, GivesWhatAFreshParseGives) {
  const std::string path = "incremental_edit_test.py";
  std::string text = readFixture("gs401_region_kinds.py");
  ASSERT_FALSE(text.empty());
  IncrementalTrees::instance().forget(path);
  const std::uint64_t reused_before = IncrementalTrees::instance().reusedParses();
  EXPECT_EQ(findings(path, text, true), findings(path, text, false));

  auto replaceFirst = [&](const std::string& from, const std::string& to) {
    std::size_t at = text.find(from);
    if (at != std::string::npos) text.replace(at, from.size(), to);
  };
  int versions = 0;
  for (int round = 0; round < 12; ++round) {
    switch (round % 6) {
      case 0: replaceFirst(".item()", ".float()"); break;           // a finding goes away
      case 1: text.insert(text.find('\n') + 1, "import os\n"); break;  // lines shift
      case 2: replaceFirst("    ", "    y = (\n    "); break;        // syntax error
      case 3: replaceFirst("    y = (\n", ""); break;                // repaired
      case 4: text += "\ndef extra(x):\n    return x.item()\n"; break;
      case 5: text.erase(text.find("import os\n"), 10); break;
    }
    ++versions;
    EXPECT_EQ(findings(path, text, true), findings(path, text, false)) << "round " << round;
  }
  EXPECT_EQ(IncrementalTrees::instance().reusedParses() - reused_before,
            static_cast<std::uint64_t>(versions));
  IncrementalTrees::instance().forget(path);
}

TEST(IncrementalReparse, KeepsABoundedNumberOfTrees) {
  for (std::size_t i = 0; i < IncrementalTrees::kMaxFiles + 8; ++i) {
    findings("bounded_" + std::to_string(i) + ".py", "import torch\nx = 1\n", true);
  }
  const std::uint64_t before = IncrementalTrees::instance().reusedParses();
  findings("bounded_0.py", "import torch\nx = 2\n", true);  // dropped: parsed from scratch
  EXPECT_EQ(IncrementalTrees::instance().reusedParses(), before);
  findings("bounded_70.py", "import torch\nx = 2\n", true);  // kept: reused
  EXPECT_EQ(IncrementalTrees::instance().reusedParses(), before + 1);
}

}  // namespace
}  // namespace graphsafe::testing
