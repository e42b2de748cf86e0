// The syntax-error notice of a bracket left open points where it was opened.
#include "frontends/python/bracket_balance.h"

#include <gtest/gtest.h>

#include <memory>

#include "analyzer/engine/analysis_settings.h"
#include "analyzer/engine/frontend.h"

namespace graphsafe::python {
namespace {

std::string problem(std::string_view text) {
  auto found = firstBracketProblem(text);
  return found ? std::to_string(found->line + 1) + ": " + found->message : "balanced";
}

TEST(BracketBalance, FindsTheBracketLeftOpenAndTheOneUnmatched) {
  EXPECT_EQ(problem("x = f(1)\ny = [1, {2: (3)}]\n"), "balanced");
  EXPECT_EQ(problem("x = 1\nclass A:\n    def f(self):\n        return [\n"),
            "4: '[' was never closed");
  EXPECT_EQ(problem("x = (1,\n     [2,\n"), "1: '(' was never closed");
  EXPECT_EQ(problem("x = 1)\n"), "1: unmatched ')'");
  EXPECT_EQ(problem("x = [1,\n  2)\n"), "2: ')' does not match '[' on line 1");
}

TEST(BracketBalance, StringsAndCommentsDoNotCount) {
  EXPECT_EQ(problem("s = '('  # ( [\nt = \"]\"\n"), "balanced");
  EXPECT_EQ(problem("s = '''\n(\n'''\nt = r\"\\\"(\"\n"), "balanced");
  EXPECT_EQ(problem("s = \"\"\"a \\\"\"\" (\n\"\"\"\n"), "balanced");
  EXPECT_EQ(problem("x = (1 + \\\n  2\n"), "1: '(' was never closed");
  // An unterminated string ends at its line.
  EXPECT_EQ(problem("s = 'open\nx = (\n"), "2: '(' was never closed");
}

TEST(BracketBalance, TheNoticeNamesTheLineWhereTheBracketWasOpened) {
  auto frontend = makePythonFrontend();
  auto source = std::make_shared<const SourceFile>(
      "e.py", "import torch\nx = 1\nclass A:\n    def f(self):\n        return [\n");
  FileModel model = frontend->analyze(source, AnalysisSettings{});
  ASSERT_EQ(model.notices.size(), 1u);
  EXPECT_EQ(model.notices[0].line, 4);
  EXPECT_EQ(model.notices[0].message.rfind("syntax error: '[' was never closed", 0), 0u)
      << model.notices[0].message;
}

}  // namespace
}  // namespace graphsafe::python
