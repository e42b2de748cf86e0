// Cross-file analysis: files are lowered lazily (only when they may hold a capture or a capture
// region reaches them), calls resolve through imports and re-exports, and the result does not
// depend on the number of jobs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analyzer/engine/engine.h"
#include "tests/temp_tree.h"

namespace graphsafe {
namespace {

using testing::TempTree;

RunResult check(const TempTree& tree, unsigned jobs = 1, std::vector<std::string> select = {}) {
  EngineOptions options;
  options.paths = {tree.path()};
  options.jobs = jobs;
  options.selection.select = std::move(select);
  return runAnalysis(options);
}

std::vector<std::string> findings(const RunResult& result) {
  std::vector<std::string> out;
  for (const Diagnostic& d : result.diagnostics) {
    std::string path = d.path();
    std::size_t slash = path.find_last_of('/');
    out.push_back(d.rule_id + " " + path.substr(slash + 1) + ":" +
                  std::to_string(d.range.start.line + 1) + " (" + std::to_string(d.related.size()) +
                  " notes)");
  }
  return out;
}

constexpr const char* kRegion = R"(import torch
from helpers import scale

def capture():
    x = torch.ones(4, device="cuda")
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y = scale(x)
    return g, x, y
)";

TEST(CrossFile, AHelperTheRegionReachesIsLoweredAndReportedAtItsOwnLine) {
  TempTree tree;
  tree.write("main.py", kRegion);
  // No word of this file matches the lexical pre-scan: only the call lowers it.
  tree.write("helpers.py", "def scale(v):\n    return v * float(v)\n");
  RunResult result = check(tree, 1, {"GS401"});
  EXPECT_EQ(findings(result), (std::vector<std::string>{"GS401 helpers.py:2 (2 notes)"}));
  EXPECT_TRUE(result.notices.empty());
}

TEST(CrossFile, AFileNothingReachesIsNotLowered) {
  TempTree tree;
  tree.write("main.py", kRegion);
  tree.write("helpers.py", "def scale(v):\n    return v\n");
  tree.write("unrelated.py", "def broken(:\n    pass\n");
  RunResult result = check(tree);
  EXPECT_TRUE(result.notices.empty()) << result.notices.front().message;
  // Once a region reaches it, it is lowered, and its syntax error is reported.
  tree.write("helpers.py", "from unrelated import broken\n\ndef scale(v):\n    return broken(v)\n");
  result = check(tree);
  ASSERT_EQ(result.notices.size(), 1u);
  EXPECT_NE(result.notices[0].message.find("syntax error"), std::string::npos);
}

TEST(CrossFile, ResolvesThroughPackagesReExportsAndAliases) {
  TempTree tree;
  tree.write("app/__init__.py", "");
  tree.write("app/main.py", R"(import torch
import lib.deep.ops as ops
from lib import first, second
from . import local

def capture(x: torch.Tensor):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        first(x)
        second(x)
        ops.third(x)
        local.fourth(x)
)");
  tree.write("app/local.py", "def fourth(t):\n    return t.numpy()\n");
  tree.write("lib/__init__.py", "from .impl import first as first\nfrom .star import *\n");
  tree.write("lib/impl.py", "def first(t):\n    return t.item()\n");
  tree.write("lib/star.py", "def second(t):\n    return t.tolist()\n");
  tree.write("lib/deep/__init__.py", "");
  tree.write("lib/deep/ops.py", "def third(t):\n    return t.cpu()\n");
  RunResult result = check(tree, 1, {"GS401"});
  EXPECT_EQ(findings(result), (std::vector<std::string>{
                                  "GS401 local.py:2 (2 notes)",
                                  "GS401 ops.py:2 (2 notes)",
                                  "GS401 impl.py:2 (2 notes)",
                                  "GS401 star.py:2 (2 notes)",
                              }));
}

TEST(CrossFile, ReExportCyclesEnd) {
  TempTree tree;
  tree.write("main.py", R"(import torch
from a import f

def capture(x: torch.Tensor):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        f(x)
)");
  tree.write("a/__init__.py", "from b import f\n");
  tree.write("b/__init__.py", "from a import f\nfrom a import *\n");
  RunResult result = check(tree, 1, {"GS401"});
  EXPECT_TRUE(result.diagnostics.empty());
}

TEST(CrossFile, SameResultForAnyNumberOfJobs) {
  TempTree tree;
  for (int i = 0; i < 12; ++i) {
    std::string n = std::to_string(i);
    tree.write(
        "m" + n + ".py",
        "import torch\nfrom h" + n +
            " import f\n\ndef cap(x: torch.Tensor):\n"
            "    g = torch.cuda.CUDAGraph()\n    with torch.cuda.graph(g):\n        f(x)\n"
            "    ys = []\n    for _ in range(2):\n        g.replay()\n        ys.append(x)\n");
    tree.write("h" + n + ".py", "def f(t):\n    return t.sum().item()\n");
  }
  RunResult one = check(tree, 1, {"GS401", "GS203"});
  RunResult two = check(tree, 2, {"GS401", "GS203"});
  RunResult four = check(tree, 4, {"GS401", "GS203"});
  EXPECT_EQ(findings(one), findings(two));
  EXPECT_EQ(findings(one), findings(four));
  EXPECT_EQ(findings(one).size(), 12u);
}

}  // namespace
}  // namespace graphsafe
