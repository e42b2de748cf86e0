// Capture entry points from the configuration: how a name is matched against the functions of
// a program (both languages), and the notice for a name that matches nothing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analyzer/engine/engine.h"
#include "analyzer/model/entry_points.h"
#include "tests/temp_tree.h"

namespace graphsafe {
namespace {

using testing::TempTree;

TEST(PythonEntryPoints, ModuleAndQualifiedNameInEitherSpelling) {
  EXPECT_TRUE(pythonEntryPointMatches("pkg.mod.Runner.run", "pkg.mod", "Runner.run"));
  EXPECT_TRUE(pythonEntryPointMatches("pkg.mod:Runner.run", "pkg.mod", "Runner.run"));
  EXPECT_TRUE(pythonEntryPointMatches("Runner.run", "pkg.mod", "Runner.run"));
  EXPECT_TRUE(pythonEntryPointMatches("decode", "pkg.mod", "decode"));
  EXPECT_FALSE(pythonEntryPointMatches("pkg.mod.Runner.step", "pkg.mod", "Runner.run"));
  EXPECT_FALSE(pythonEntryPointMatches("other.Runner.run", "pkg.mod", "Runner.run"));
  EXPECT_FALSE(pythonEntryPointMatches("", "pkg.mod", "Runner.run"));
}

TEST(PythonEntryPoints, NestedFunctionsWithOrWithoutLocals) {
  EXPECT_TRUE(pythonEntryPointMatches("app.main.<locals>.update", "app", "main.<locals>.update"));
  EXPECT_TRUE(pythonEntryPointMatches("app.main.update", "app", "main.<locals>.update"));
  EXPECT_TRUE(pythonEntryPointMatches("main.update", "app", "main.<locals>.update"));
  EXPECT_FALSE(pythonEntryPointMatches("update", "app", "main.<locals>.update"));
}

TEST(PythonEntryPoints, LeadingPackagesMayDifferAtADot) {
  // The configuration names the package from the repository root, the analysis from the
  // nearest directory without an __init__.py, or the other way round.
  EXPECT_TRUE(pythonEntryPointMatches("python.sglang.runner.Runner.capture", "sglang.runner",
                                      "Runner.capture"));
  EXPECT_TRUE(pythonEntryPointMatches("runner.Runner.capture", "sglang.runner", "Runner.capture"));
  EXPECT_FALSE(pythonEntryPointMatches("unner.Runner.capture", "sglang.runner", "Runner.capture"));
  // A plain name is a top-level function's, never a method's.
  EXPECT_FALSE(pythonEntryPointMatches("capture", "sglang.runner", "Runner.capture"));
  EXPECT_FALSE(pythonEntryPointMatches("ns::capture", "sglang.runner", "capture"));
}

TEST(CudaEntryPoints, QualifiedAtTheScopeOperatorOrByPlainName) {
  EXPECT_TRUE(cudaEntryPointMatches("ops::Runner::step", "ops::Runner::step", "step"));
  EXPECT_TRUE(cudaEntryPointMatches("Runner::step", "ops::Runner::step", "step"));
  EXPECT_TRUE(cudaEntryPointMatches("::ops::Runner::step", "ops::Runner::step", "step"));
  EXPECT_TRUE(cudaEntryPointMatches("step", "ops::Runner::step", "step"));
  EXPECT_FALSE(cudaEntryPointMatches("unner::step", "ops::Runner::step", "step"));
  EXPECT_FALSE(cudaEntryPointMatches("ops.Runner.step", "ops::Runner::step", "step"));
}

RunResult checkWithEntries(const TempTree& tree, std::vector<std::string> entries) {
  EngineOptions options;
  options.paths = {tree.path()};
  options.jobs = 1;
  options.selection.select = {"GS401"};
  options.settings.capture_entry_points = std::move(entries);
  return runAnalysis(options);
}

TEST(EntryPoints, NamesInANamespacePackageAndNestedFunctionsOpenRegions) {
  TempTree tree;
  tree.write("pyproject.toml", "[project]\nname = 'serve'\n");
  // engine/ and engine/runner/ have no __init__.py: a namespace package.
  tree.write("engine/runner/replay.py",
             "def main(x):\n"
             "    def update(v):\n"
             "        return v.sum().item()\n"
             "    return update(x)\n"
             "\n"
             "class Runner:\n"
             "    def step(self, x):\n"
             "        return x.max().item()\n");
  RunResult result =
      checkWithEntries(tree, {"engine.runner.replay.main.update", "engine.runner.replay:Runner.step"});
  ASSERT_EQ(result.diagnostics.size(), 2u);
  EXPECT_EQ(result.diagnostics[0].range.start.line, 2);
  EXPECT_EQ(result.diagnostics[1].range.start.line, 7);
  EXPECT_TRUE(result.notices.empty());
}

TEST(EntryPoints, AnEntryPointThatMatchesNothingGetsANoticeNamingIt) {
  TempTree tree;
  tree.write("app.py", "def step(x):\n    return x.max().item()\n");
  RunResult result = checkWithEntries(tree, {"app.step", "app.stpe"});
  EXPECT_EQ(result.diagnostics.size(), 1u);
  ASSERT_EQ(result.notices.size(), 1u);
  EXPECT_NE(result.notices[0].message.find("`app.stpe`"), std::string::npos)
      << result.notices[0].message;
}

}  // namespace
}  // namespace graphsafe
