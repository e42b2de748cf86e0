// --baseline / --write-baseline: matching by rule, path and line content survives line shifts,
// new findings are reported, and the file is written atomically.
#include "analyzer/baseline/baseline.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>

#include "tests/temp_tree.h"

namespace graphsafe {
namespace {

using testing::TempTree;

Diagnostic finding(const SourceFilePtr& file, const std::string& rule, std::string_view needle) {
  Diagnostic diagnostic;
  diagnostic.rule_id = rule;
  diagnostic.rule_name = "host-sync";
  diagnostic.file = file;
  std::size_t at = file->text().find(needle);
  diagnostic.range =
      file->rangeOf(static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(at + needle.size()));
  diagnostic.message = "message";
  return diagnostic;
}

TEST(BaselineTest, MatchesAcrossLineShiftsAndReportsNewFindings) {
  TempTree tree;
  std::string baseline_path = tree.path("baseline.json");
  auto before = std::make_shared<const SourceFile>(tree.path("src/a.py"),
                                                   "with g:\n    y = x.item()\n    z = w.item()\n");
  RunResult old_result;
  old_result.diagnostics = {finding(before, "GS401", "x.item()"),
                            finding(before, "GS401", "w.item()")};
  Baseline baseline = Baseline::fromResult(old_result, baseline_path);
  ASSERT_EQ(baseline.entries().size(), 2u);
  EXPECT_EQ(baseline.entries()[0].path, "src/a.py");  // relative to the baseline's directory
  EXPECT_EQ(baseline.entries()[0].line, 2u);

  // Three lines added above, an indentation change, and one new finding.
  auto after = std::make_shared<const SourceFile>(
      tree.path("src/a.py"),
      "import torch\n\n\nwith g:\n        y = x.item()\n    z = w.item()\n    q = v.item()\n");
  RunResult new_result;
  new_result.diagnostics = {finding(after, "GS401", "x.item()"),
                            finding(after, "GS401", "w.item()"),
                            finding(after, "GS401", "v.item()")};
  EXPECT_EQ(baseline.filter(new_result, baseline_path), 2u);
  ASSERT_EQ(new_result.diagnostics.size(), 1u);
  EXPECT_EQ(new_result.diagnostics[0].range.start.line, 6u);

  // Another rule on a baselined line, or the same line in another file, is new.
  RunResult other;
  auto elsewhere = std::make_shared<const SourceFile>(tree.path("src/b.py"), "    y = x.item()\n");
  other.diagnostics = {finding(after, "GS101", "x.item()"),
                       finding(elsewhere, "GS401", "x.item()")};
  EXPECT_EQ(baseline.filter(other, baseline_path), 0u);
  EXPECT_EQ(other.diagnostics.size(), 2u);
}

TEST(BaselineTest, EachEntryHidesOneFinding) {
  TempTree tree;
  auto file = std::make_shared<const SourceFile>(tree.path("a.py"), "y = x.item()\n");
  RunResult one;
  one.diagnostics = {finding(file, "GS401", "x.item()")};
  Baseline baseline = Baseline::fromResult(one, tree.path("b.json"));
  auto twice =
      std::make_shared<const SourceFile>(tree.path("a.py"), "y = x.item()\ny = x.item()\n");
  RunResult two;
  two.diagnostics = {finding(twice, "GS401", "x.item()")};
  Diagnostic second = finding(twice, "GS401", "x.item()");
  second.range = twice->rangeOf(17, 25);
  two.diagnostics.push_back(second);
  EXPECT_EQ(baseline.filter(two, tree.path("b.json")), 1u);
  EXPECT_EQ(two.diagnostics.size(), 1u);
}

TEST(BaselineTest, RoundTripsThroughTheFileAndWritesAtomically) {
  TempTree tree;
  auto file = std::make_shared<const SourceFile>(tree.path("a.py"), "y = x.item()\n");
  RunResult result;
  result.diagnostics = {finding(file, "GS401", "x.item()")};
  std::string path = tree.path("baseline.json");
  tree.write("baseline.json", "old");
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  std::string error;
  Baseline written = Baseline::fromResult(result, path);
  ASSERT_TRUE(written.write(path, error)) << error;
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0640u);  // permissions kept
  // No temporary file left behind.
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(tree.root())) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 1u);

  std::optional<Baseline> loaded = Baseline::load(path, error);
  ASSERT_TRUE(loaded) << error;
  EXPECT_EQ(loaded->entries(), written.entries());

  // A directory that does not exist: an error, nothing written.
  EXPECT_FALSE(written.write(tree.path("missing/dir/baseline.json"), error));
  EXPECT_FALSE(error.empty());
}

TEST(BaselineTest, RejectsFilesThatAreNotBaselines) {
  TempTree tree;
  std::string error;
  EXPECT_FALSE(Baseline::load(tree.path("none.json"), error));
  tree.write("bad.json", "{not json");
  EXPECT_FALSE(Baseline::load(tree.path("bad.json"), error));
  EXPECT_NE(error.find("not valid JSON"), std::string::npos);
  tree.write("v2.json", R"({"version": 2, "findings": []})");
  EXPECT_FALSE(Baseline::load(tree.path("v2.json"), error));
  EXPECT_NE(error.find("version 2"), std::string::npos);
  tree.write("entry.json", R"({"version": 1, "findings": [{"rule": "GS401"}]})");
  EXPECT_FALSE(Baseline::load(tree.path("entry.json"), error));
  EXPECT_NE(error.find("findings[0]"), std::string::npos);
}

std::string quote(const std::string& text) {
  return "'" + text + "'";
}

int run(const std::string& directory, const std::string& arguments) {
  std::string command = "cd " + quote(directory) + " && " + quote(GRAPHSAFE_BINARY) + " " +
                        arguments + " >/dev/null 2>&1";
  int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(BaselineTest, CommandLine) {
  TempTree tree;
  std::string bug =
      "import torch\n"
      "g = torch.cuda.CUDAGraph()\n"
      "with torch.cuda.graph(g):\n"
      "    y = x.sum().item()\n";
  tree.write("src/a.py", bug);
  EXPECT_EQ(run(tree.path(), "check src"), 1);
  EXPECT_EQ(run(tree.path(), "check src --write-baseline graphsafe-baseline.json"), 0);
  EXPECT_EQ(run(tree.path(), "check src --baseline graphsafe-baseline.json"), 0);
  // Lines added above keep the old finding matched; a new hazard fails the check.
  tree.write("src/a.py", "# moved\n\n" + bug);
  EXPECT_EQ(run(tree.path(), "check src --baseline graphsafe-baseline.json"), 0);
  tree.write("src/a.py", bug + "    z = x.max().item()\n");
  EXPECT_EQ(run(tree.path(), "check src --baseline graphsafe-baseline.json"), 1);
  // From another directory, the paths in the baseline still resolve.
  EXPECT_EQ(run(tree.path("src"), "check a.py --baseline ../graphsafe-baseline.json"), 1);
  tree.write("src/a.py", bug);
  EXPECT_EQ(run(tree.path("src"), "check a.py --baseline ../graphsafe-baseline.json"), 0);
  EXPECT_EQ(run(tree.path(), "check src --baseline missing.json"), 2);
}

// A file name is bytes: `caf\xe9.py` (Latin-1) is not UTF-8, so JSON cannot hold it as a string.
// It is kept exactly in "path_bytes" and matched again; UTF-8 names and older baselines, which
// have no "path_bytes", read as before.
TEST(BaselineTest, AFileNameThatIsNotUtf8IsKeptExactly) {
  TempTree tree;
  auto latin1 = std::make_shared<const SourceFile>(tree.path("caf\xe9.py"), "y = x.item()\n");
  auto utf8 = std::make_shared<const SourceFile>(tree.path("caf\xc3\xa9.py"), "y = x.item()\n");
  RunResult result;
  result.diagnostics = {finding(latin1, "GS401", "x.item()"), finding(utf8, "GS401", "x.item()")};
  std::string path = tree.path("baseline.json");
  std::string error;
  ASSERT_TRUE(Baseline::fromResult(result, path).write(path, error)) << error;
  std::string text = tree.read("baseline.json");
  EXPECT_NE(text.find("\"path_bytes\": \"636166e92e7079\""), std::string::npos) << text;
  EXPECT_EQ(text.find("path_bytes\": \"636166c3a92e7079"), std::string::npos) << text;

  std::optional<Baseline> loaded = Baseline::load(path, error);
  ASSERT_TRUE(loaded) << error;
  ASSERT_EQ(loaded->entries().size(), 2u);
  EXPECT_EQ(loaded->entries(), Baseline::fromResult(result, path).entries());
  RunResult again = result;
  EXPECT_EQ(loaded->filter(again, path), 2u);
  EXPECT_TRUE(again.diagnostics.empty());

  // Not hex: not a baseline (rather than an entry that matches nothing).
  tree.write("odd.json", R"({"version": 1, "findings": [{"rule": "GS401", "path": "x",)"
                         R"( "fingerprint": "0", "path_bytes": "zz"}]})");
  EXPECT_FALSE(Baseline::load(tree.path("odd.json"), error));
  EXPECT_NE(error.find("path_bytes"), std::string::npos) << error;
}

TEST(BaselineTest, CommandLineWithAFileNameThatIsNotUtf8) {
  TempTree tree;
  tree.write("caf\xe9.py",
             "import torch\n"
             "g = torch.cuda.CUDAGraph()\n"
             "with torch.cuda.graph(g):\n"
             "    y = x.sum().item()\n");
  EXPECT_EQ(run(tree.path(), "check --no-cache ."), 1);
  EXPECT_EQ(run(tree.path(), "check . --write-baseline graphsafe-baseline.json"), 0);
  EXPECT_EQ(run(tree.path(), "check . --baseline graphsafe-baseline.json"), 0);
  EXPECT_EQ(run(tree.path(), "check --no-cache . --baseline graphsafe-baseline.json"), 0);
}

}  // namespace
}  // namespace graphsafe
