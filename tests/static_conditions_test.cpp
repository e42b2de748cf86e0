// Tests that arguments decide and conditions false as the program starts: literal keys, and the
// walk across files, where the caller's literal meets the callee's test.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "analyzer/engine/engine.h"
#include "analyzer/model/literal_key.h"
#include "tests/temp_tree.h"

namespace graphsafe {
namespace {

using testing::TempTree;

TEST(LiteralKey, SpellingsOfOneLiteralShareAKey) {
  EXPECT_EQ(literalKey("\"cuda\""), literalKey("'cuda'"));
  EXPECT_EQ(literalKey("'''cuda'''"), "s:cuda");
  EXPECT_EQ(literalKey("r'cuda'"), "s:cuda");
  EXPECT_EQ(literalKey("1_000"), literalKey("1000"));
  EXPECT_EQ(literalKey("007"), "i:7");
  EXPECT_EQ(literalKey("-0"), "i:0");
  EXPECT_EQ(literalKey("None"), "None");
  EXPECT_EQ(literalKey(" True "), "True");
}

TEST(LiteralKey, LiteralsWhoseValueIsNotTheirSpellingHaveNone) {
  EXPECT_FALSE(literalKey("b'cuda'"));   // bytes are not str
  EXPECT_FALSE(literalKey("f'{x}'"));    // formatted
  EXPECT_FALSE(literalKey("'a\\x41'"));  // escapes
  EXPECT_FALSE(literalKey("1.5"));       // floats compare by value
  EXPECT_FALSE(literalKey("0x10"));
  EXPECT_FALSE(literalKey("backend"));  // a name
  EXPECT_FALSE(literalKey("\"unterminated"));
  EXPECT_FALSE(literalKey(""));
}

TEST(LiteralKey, IntegersAndBooleansAreNotComparedByKey) {
  EXPECT_FALSE(keysComparable("i:1", "True"));  // 1 == True
  EXPECT_FALSE(keysComparable("False", "i:0"));
  EXPECT_TRUE(keysComparable("i:1", "i:2"));
  EXPECT_TRUE(keysComparable("True", "False"));
  EXPECT_TRUE(keysComparable("s:1", "i:1"));
  EXPECT_TRUE(keysComparable("None", "i:0"));
}

TEST(LiteralKey, TruthinessFollowsPython) {
  for (const char* falsy : {"None", "False", "i:0", "s:"}) EXPECT_FALSE(literalTruthy(falsy));
  for (const char* truthy : {"True", "i:-1", "s:0", "s:False"}) EXPECT_TRUE(literalTruthy(truthy));
}

std::vector<std::string> findingLines(
    const TempTree& tree, std::vector<std::pair<std::string, std::string>> environment = {}) {
  EngineOptions options;
  options.settings.environment = std::move(environment);
  options.paths = {tree.path()};
  options.selection.select = {"GS401"};
  RunResult result = runAnalysis(options);
  std::vector<std::string> out;
  for (const Diagnostic& d : result.diagnostics) {
    std::string path = d.path();
    out.push_back(path.substr(path.find_last_of('/') + 1) + ":" +
                  std::to_string(d.range.start.line + 1));
  }
  return out;
}

constexpr const char* kHelpers = R"(import torch

def scale(t, backend="cuda"):
    if backend == "cuda":
        return t * float(t.sum().item())
    return t * 2
)";

// main.py: a region that makes `calls` (one per line) of helpers.scale.
std::string regionCalling(const std::string& calls) {
  std::string text =
      "import torch\nfrom helpers import scale\n\ndef run(t):\n"
      "    g = torch.cuda.CUDAGraph()\n    with torch.cuda.graph(g):\n";
  std::size_t start = 0;
  while (start < calls.size()) {
    std::size_t end = calls.find('\n', start);
    if (end == std::string::npos) end = calls.size();
    text += "        " + calls.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return text;
}

TEST(StaticConditions, ACallersLiteralDecidesATestInAnotherFile) {
  TempTree tree;
  tree.write("helpers.py", kHelpers);
  tree.write("main.py", regionCalling("scale(t, backend=\"triton\")"));
  EXPECT_TRUE(findingLines(tree).empty());
}

TEST(StaticConditions, TheDefaultOfAnOmittedArgumentTakesTheBranch) {
  TempTree tree;
  tree.write("helpers.py", kHelpers);
  tree.write("main.py", regionCalling("scale(t)"));
  EXPECT_EQ(findingLines(tree), (std::vector<std::string>{"helpers.py:5"}));
}

TEST(StaticConditions, OneFunctionReachedWithTwoLiteralsIsWalkedForEach) {
  TempTree tree;
  tree.write("helpers.py", kHelpers);
  // The first call decides against the branch; the second, in the same region, takes it.
  tree.write("main.py", regionCalling("scale(t, \"triton\")\nscale(t, \"cuda\")"));
  EXPECT_EQ(findingLines(tree), (std::vector<std::string>{"helpers.py:5"}));
}

TEST(StaticConditions, AnEnvironmentVariableSetOnlyByTheUserGatesNothingByDefault) {
  TempTree tree;
  tree.write("main.py", R"(import os
import torch

CHECK = os.environ.get("CHECK", "") != ""

def run(t):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        if CHECK:
            t.sum().item()
        if os.getenv("FAST", "1") == "1":
            t.max().item()
)");
  EXPECT_EQ(findingLines(tree), (std::vector<std::string>{"main.py:12"}));
}

TEST(StaticConditions, TheEnvironmentSettingSetsVariables) {
  TempTree tree;
  tree.write("main.py", R"(import os
import torch

def run(t):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        if os.environ.get("CHECK", "0") == "1":
            t.sum().item()
        if "TRACE" in os.environ:
            t.max().item()
        if os.getenv("FAST", "1") == "1":
            t.min().item()
)");
  EXPECT_EQ(findingLines(tree), (std::vector<std::string>{"main.py:12"}));
  EXPECT_EQ(findingLines(tree, {{"CHECK", "1"}, {"TRACE", ""}, {"FAST", "0"}}),
            (std::vector<std::string>{"main.py:8", "main.py:10"}));
}

}  // namespace
}  // namespace graphsafe
