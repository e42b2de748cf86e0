// `--fix` and `--diff`: GS203's `.clone()` applied to the file, shown as a unified diff, never
// written over a file that changed since it was analyzed.
#include "analyzer/engine/fix_application.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

#include "analyzer/cli/check_command.h"
#include "tests/temp_tree.h"

namespace graphsafe {
namespace {

constexpr const char* kKept =
    "import torch\n"
    "\n"
    "x = torch.zeros(1, device=\"cuda\")\n"
    "g = torch.cuda.CUDAGraph()\n"
    "with torch.cuda.graph(g):\n"
    "    y = x ** 2 + 1\n"
    "ys = []\n"
    "for i in range(3):\n"
    "    x.fill_(i)\n"
    "    g.replay()\n"
    "    ys.append(y)\n"
    "out = torch.cat(ys)\n";

struct CheckRun {
  int code = -1;
  std::string out;
  std::string err;
};

CheckRun check(const std::string& path, bool fix, bool diff) {
  CheckCommandOptions options;
  options.paths = {path};
  options.select = {"GS203"};
  options.format = "concise";
  options.no_cache = true;
  options.fix = fix;
  options.diff = diff;
  std::ostringstream out;
  std::ostringstream err;
  std::istringstream in;
  CheckRun run;
  run.code = runCheckCommand(options, out, err, false, false, in);
  run.out = out.str();
  run.err = err.str();
  return run;
}

TEST(FixApplication, FixWritesTheCloneAndReportsWhatIsLeft) {
  testing::TempTree tree;
  tree.write("kept.py", kKept);
  CheckRun run = check(tree.path("kept.py"), true, false);
  EXPECT_EQ(run.code, 0) << run.out << run.err;
  EXPECT_NE(run.err.find("fixed 1 finding in 1 file"), std::string::npos) << run.err;
  EXPECT_NE(tree.read("kept.py").find("    ys.append(y.clone())\n"), std::string::npos)
      << tree.read("kept.py");
  // Fixed, the file has nothing left to fix or report.
  CheckRun again = check(tree.path("kept.py"), false, false);
  EXPECT_EQ(again.code, 0) << again.out;
}

TEST(FixApplication, DiffShowsTheFixAndWritesNothing) {
  testing::TempTree tree;
  tree.write("kept.py", kKept);
  CheckRun run = check(tree.path("kept.py"), false, true);
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(tree.read("kept.py"), kKept);
  const std::string path = tree.path("kept.py");
  EXPECT_EQ(run.out, "--- " + path + "\n+++ " + path +
                         "\n"
                         "@@ -8,5 +8,5 @@\n"
                         " for i in range(3):\n"
                         "     x.fill_(i)\n"
                         "     g.replay()\n"
                         "-    ys.append(y)\n"
                         "+    ys.append(y.clone())\n"
                         " out = torch.cat(ys)\n");
  EXPECT_NE(run.err.find("1 fix would be applied"), std::string::npos) << run.err;
}

TEST(FixApplication, UnifiedDiffJoinsNearbyEditsAndKeepsFarOnesApart) {
  std::string text;
  for (int i = 1; i <= 20; ++i) text += "line" + std::to_string(i) + "\n";
  auto at = [&](std::uint32_t line, std::string replacement) {
    const auto offset = static_cast<std::uint32_t>(text.find("line" + std::to_string(line) + "\n"));
    TextEdit edit;
    edit.range.begin = offset + 4;
    edit.range.end = offset + 4 + static_cast<std::uint32_t>(std::to_string(line).size());
    edit.replacement = std::move(replacement);
    return edit;
  };
  const std::string diff = unifiedDiff("f.py", text, {at(2, "B"), at(4, "D\nextra"), at(18, "R")});
  EXPECT_EQ(diff,
            "--- a/f.py\n+++ b/f.py\n"
            "@@ -1,7 +1,8 @@\n"
            " line1\n-line2\n+lineB\n line3\n-line4\n+lineD\n+extra\n line5\n line6\n line7\n"
            "@@ -15,6 +16,6 @@\n"
            " line15\n line16\n line17\n-line18\n+lineR\n line19\n line20\n");
  EXPECT_EQ(applyEdits(text, {at(2, "B")}).substr(0, 12), "line1\nlineB\n");
  // No newline at the end of the file.
  EXPECT_EQ(unifiedDiff("g.py", "a", {TextEdit{SourceRange{1, 1, {}, {}}, "b"}}),
            "--- a/g.py\n+++ b/g.py\n@@ -1,1 +1,1 @@\n-a\n\\ No newline at end of file\n+ab\n"
            "\\ No newline at end of file\n");
}

TEST(FixApplication, AFileChangedSinceItWasAnalyzedIsNotWritten) {
  testing::TempTree tree;
  tree.write("kept.py", kKept);
  CheckCommandOptions options;
  RunResult result;
  {
    // Analyzed, then edited by someone else before the fixes are written.
    EngineOptions engine;
    engine.paths = {tree.path("kept.py")};
    engine.selection.select = {"GS203"};
    engine.jobs = 1;
    result = runAnalysis(engine);
  }
  ASSERT_EQ(result.diagnostics.size(), 1u);
  tree.write("kept.py", std::string(kKept) + "# edited\n");
  std::ostringstream err;
  std::size_t files = 0;
  EXPECT_EQ(writeFixes(result, err, files), 0u);
  EXPECT_EQ(files, 0u);
  EXPECT_NE(err.str().find("not fixed: the file changed since it was analyzed"), std::string::npos);
  EXPECT_EQ(tree.read("kept.py"), std::string(kKept) + "# edited\n");
  EXPECT_EQ(result.diagnostics.size(), 1u);
}

TEST(FixApplication, StandardInputIsNotFixedInPlace) {
  CheckCommandOptions options;
  options.paths = {"-"};
  options.stdin_filename = "kept.py";
  options.fix = true;
  std::istringstream in(kKept);
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(runCheckCommand(options, out, err, false, false, in), 2);
  EXPECT_NE(err.str().find("--diff shows the fixes instead"), std::string::npos) << err.str();
}

// The fixes of `result`, applied to copies of their files under `into` (same relative paths).
std::vector<std::string> applyFixesInto(const RunResult& result, const std::string& from,
                                        const testing::TempTree& into) {
  std::vector<std::string> written;
  for (const FileFix& file : collectFixes(result)) {
    std::string relative = std::filesystem::relative(file.file->path(), from).string();
    into.write(relative, applyEdits(file.file->text(), file.edits));
    written.push_back(into.path(relative));
  }
  return written;
}

// Whether Debian's Python parses every file (its `ast`, the grammar the code will run under).
bool pythonParses(const std::vector<std::string>& files, std::string& why) {
  testing::TempTree scratch;
  std::string command =
      "/usr/bin/python3 -c 'import ast, sys\n"
      "for p in sys.argv[1:]:\n"
      "    ast.parse(open(p, \"rb\").read(), p)' ";
  for (const std::string& file : files) command += " '" + file + "'";
  command += " 2>" + scratch.path("err");
  const int status = std::system(command.c_str());
  why = scratch.read("err");
  return status == 0;
}

TEST(FixApplication, CloneIsOfferedOnlyForValuesKnownToBeTensors) {
  // `.clone()` on a tuple, a list, a dict or a value of unknown type raises AttributeError:
  // the finding stays, without a fix.
  const std::string text =
      "import torch\n"
      "def run(model, x):\n"
      "    g = torch.cuda.CUDAGraph()\n"
      "    with torch.cuda.graph(g):\n"
      "        pair = (x * 2, x + 1)\n"
      "        items = [x * 2]\n"
      "        named = {\"a\": x * 2}\n"
      "        opaque = model(x)\n"
      "        tensor = torch.relu(x)\n"
      "    kept = []\n"
      "    for _ in range(3):\n"
      "        g.replay()\n"
      "        kept.append(pair)\n"
      "        kept.append(items)\n"
      "        kept.append(named)\n"
      "        kept.append(opaque)\n"
      "        kept.append(tensor)\n"
      "        kept.append((tensor, 1))\n"
      "    return kept\n";
  EngineOptions options;
  options.jobs = 1;
  options.selection.select = {"GS203"};
  RunResult result =
      analyzeSources({std::make_shared<const SourceFile>("forms.py", text)}, options);
  std::map<std::uint32_t, bool> fixed_by_line;
  for (const Diagnostic& d : result.diagnostics) {
    fixed_by_line[d.range.start.line + 1] = d.fix.has_value();
  }
  // The tensor kept inside a tuple is cloned where it stands: `(tensor.clone(), 1)`.
  const std::map<std::uint32_t, bool> expected = {{13, false}, {14, false}, {15, false},
                                                  {16, false}, {17, true},  {18, true}};
  EXPECT_EQ(fixed_by_line, expected);
  testing::TempTree out;
  out.write("forms.py", applyEdits(text, collectFixes(result).at(0).edits));
  EXPECT_NE(out.read("forms.py").find("kept.append(tensor.clone())"), std::string::npos);
  EXPECT_NE(out.read("forms.py").find("kept.append((tensor.clone(), 1))"), std::string::npos);
  std::string why;
  EXPECT_TRUE(pythonParses({out.path("forms.py")}, why)) << why;
}

TEST(FixApplication, EveryFixOnTheFixturesAndProbeProgramsLeavesCodePythonParses) {
  const std::string source = GRAPHSAFE_SOURCE_DIR;
  std::size_t fixed_files = 0;
  for (const char* dir : {"fixtures/python", "runtime-probe/cases/python"}) {
    SCOPED_TRACE(dir);
    EngineOptions options;
    options.jobs = 1;
    options.paths = {source + "/" + dir};
    options.selection.select = {"GS203"};
    RunResult result = runAnalysis(options);
    testing::TempTree out;
    std::vector<std::string> written = applyFixesInto(result, options.paths[0], out);
    fixed_files += written.size();
    if (written.empty()) continue;
    std::string why;
    EXPECT_TRUE(pythonParses(written, why)) << why;
  }
  EXPECT_GT(fixed_files, 0u);
}

}  // namespace
}  // namespace graphsafe
