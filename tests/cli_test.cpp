// Runs the graphsafe binary on small trees, as a user or CI would.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "analyzer/catalog/rule_catalog.h"
#include "tests/temp_tree.h"

namespace graphsafe {
namespace {

using testing::TempTree;

constexpr const char* kBug =
    "import torch\n"
    "\n"
    "x = torch.ones(4, device=\"cuda\")\n"
    "graph = torch.cuda.CUDAGraph()\n"
    "with torch.cuda.graph(graph):\n"
    "    total = x.sum()\n"
    "    value = total.item()\n"
    "    if total > 0:\n"
    "        pass\n";

constexpr const char* kClean =
    "import torch\n"
    "\n"
    "x = torch.ones(4, device=\"cuda\")\n"
    "graph = torch.cuda.CUDAGraph()\n"
    "with torch.cuda.graph(graph):\n"
    "    total = x.sum()\n"
    "graph.replay()\n"
    "value = total.item()\n";

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

class CliTest : public ::testing::Test {
 protected:
  // Runs `graphsafe ARGS...` in the tree's root; `env` is prefixed to the command line.
  CommandResult graphsafe(const std::vector<std::string>& args, const std::string& env = "") {
    std::string command =
        "cd " + quote(tree_.path()) + " && " + env + " " + quote(GRAPHSAFE_BINARY);
    for (const std::string& arg : args) command += " " + quote(arg);
    std::string out = output_.path("stdout");
    std::string err = output_.path("stderr");
    command += " >" + quote(out) + " 2>" + quote(err);
    int status = std::system(command.c_str());
    CommandResult run;
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    run.out = output_.read("stdout");
    run.err = output_.read("stderr");
    return run;
  }

  static bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  }

  TempTree tree_;
  TempTree output_;
};

TEST_F(CliTest, ExitCodesZeroAndOne) {
  tree_.write("bug.py", kBug);
  tree_.write("clean.py", kClean);

  CommandResult findings = graphsafe({"check"});
  EXPECT_EQ(findings.exit_code, 1) << findings.err;
  EXPECT_TRUE(has(findings.out, "bug.py:7:")) << findings.out;
  EXPECT_TRUE(has(findings.out, "error[GS401]")) << findings.out;
  EXPECT_TRUE(has(findings.out, "error[GS101]")) << findings.out;
  EXPECT_TRUE(has(findings.out, "Found 2 errors in 1 file.")) << findings.out;
  EXPECT_FALSE(has(findings.out, "clean.py"));

  CommandResult clean = graphsafe({"check", "clean.py"});
  EXPECT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_EQ(clean.out, "");
  EXPECT_TRUE(has(clean.err, "No CUDA-graph hazards found in 1 file.")) << clean.err;

  CommandResult exit_zero = graphsafe({"check", "--exit-zero", "."});
  EXPECT_EQ(exit_zero.exit_code, 0);
  EXPECT_TRUE(has(exit_zero.out, "error[GS401]"));

  CommandResult quiet = graphsafe({"check", "-q", "clean.py"});
  EXPECT_EQ(quiet.exit_code, 0);
  EXPECT_EQ(quiet.err, "");
}

TEST_F(CliTest, SelectAndIgnoreTakeIdsAndPrefixes) {
  tree_.write("bug.py", kBug);
  auto rules_in = [&](const std::vector<std::string>& args) {
    std::vector<std::string> all = {"check", "--format", "concise"};
    all.insert(all.end(), args.begin(), args.end());
    CommandResult run = graphsafe(all);
    std::string rules;
    if (has(run.out, "GS101")) rules += "GS101 ";
    if (has(run.out, "GS401")) rules += "GS401 ";
    return std::to_string(run.exit_code) + " " + rules;
  };
  EXPECT_EQ(rules_in({}), "1 GS101 GS401 ");
  EXPECT_EQ(rules_in({"--select", "GS4"}), "1 GS401 ");
  EXPECT_EQ(rules_in({"--select", "GS101"}), "1 GS101 ");
  EXPECT_EQ(rules_in({"--select=GS1,GS4"}), "1 GS101 GS401 ");
  EXPECT_EQ(rules_in({"--select", "GS1", "--select", "GS4"}), "1 GS101 GS401 ");
  EXPECT_EQ(rules_in({"--ignore", "GS4"}), "1 GS101 ");
  EXPECT_EQ(rules_in({"--ignore", "GS401,GS101"}), "0 ");
  EXPECT_EQ(rules_in({"--select", "GS4", "--ignore", "GS401"}), "0 ");
  // A path after a repeatable option is still a path.
  EXPECT_EQ(rules_in({"--select", "GS4", "bug.py"}), "1 GS401 ");
}

TEST_F(CliTest, UsageErrorsExitTwo) {
  tree_.write("bug.py", kBug);
  CommandResult unknown_code = graphsafe({"check", "--select", "GS999"});
  EXPECT_EQ(unknown_code.exit_code, 2);
  EXPECT_TRUE(has(unknown_code.err, "graphsafe: error: --select: unknown rule code 'GS999'"))
      << unknown_code.err;
  EXPECT_EQ(graphsafe({"check", "--ignore", "E501"}).exit_code, 2);

  CommandResult bad_flag = graphsafe({"check", "--no-such-flag"});
  EXPECT_EQ(bad_flag.exit_code, 2);
  EXPECT_TRUE(has(bad_flag.err, "graphsafe: error:")) << bad_flag.err;
  EXPECT_TRUE(has(bad_flag.err, "usage: graphsafe check")) << bad_flag.err;

  CommandResult bad_command = graphsafe({"frobnicate"});
  EXPECT_EQ(bad_command.exit_code, 2);
  EXPECT_TRUE(has(bad_command.err, "unknown command 'frobnicate'")) << bad_command.err;

  EXPECT_EQ(graphsafe({}).exit_code, 2);
  EXPECT_EQ(graphsafe({"check", "--format", "xml"}).exit_code, 2);
  EXPECT_EQ(graphsafe({"check", "--color", "sometimes"}).exit_code, 2);
  EXPECT_EQ(graphsafe({"check", "-j", "-1"}).exit_code, 2);
  EXPECT_EQ(graphsafe({"check", "--max-file-size", "huge"}).exit_code, 2);

  CommandResult missing = graphsafe({"check", "nope/"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(has(missing.err, "nope/: no such file or directory")) << missing.err;
}

TEST_F(CliTest, OutputDoesNotDependOnJobs) {
  for (int i = 0; i < 8; ++i) {
    tree_.write("pkg" + std::to_string(i % 3) + "/mod" + std::to_string(i) + ".py", kBug);
    tree_.write("pkg" + std::to_string(i % 3) + "/ok" + std::to_string(i) + ".py", kClean);
  }
  CommandResult one = graphsafe({"check", "-j", "1", "--format", "json"});
  CommandResult two = graphsafe({"check", "--jobs", "2", "--format", "json"});
  CommandResult many = graphsafe({"check", "-j", "7", "--format", "json"});
  EXPECT_EQ(one.exit_code, 1);
  EXPECT_EQ(one.out, two.out);
  EXPECT_EQ(one.out, many.out);
  EXPECT_EQ(nlohmann::json::parse(one.out)["summary"]["errors"], 16);
  CommandResult text_one = graphsafe({"check", "-j", "1"});
  CommandResult text_two = graphsafe({"check", "-j", "2"});
  EXPECT_EQ(text_one.out, text_two.out);
}

TEST_F(CliTest, MachineFormatsAndOutputFile) {
  tree_.write("bug.py", kBug);
  CommandResult json = graphsafe({"check", "--format", "json"});
  EXPECT_EQ(json.exit_code, 1);
  auto document = nlohmann::json::parse(json.out);
  EXPECT_EQ(document["summary"]["errors"], 2);
  EXPECT_EQ(document["diagnostics"][0]["path"], "bug.py");

  CommandResult sarif = graphsafe({"check", "--format=sarif"});
  auto log = nlohmann::json::parse(sarif.out);
  EXPECT_EQ(log["version"], "2.1.0");
  EXPECT_EQ(log["runs"][0]["results"].size(), 2u);
  EXPECT_EQ(
      log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
      "bug.py");

  CommandResult github = graphsafe({"check", "--format", "github"});
  EXPECT_TRUE(github.out.starts_with("::error file=bug.py,line=")) << github.out;

  CommandResult to_file = graphsafe({"check", "--format", "sarif", "--output", "report.sarif"});
  EXPECT_EQ(to_file.exit_code, 1);
  EXPECT_EQ(to_file.out, "");
  EXPECT_EQ(nlohmann::json::parse(tree_.read("report.sarif"))["version"], "2.1.0");

  CommandResult stats = graphsafe({"check", "--statistics"});
  EXPECT_EQ(stats.exit_code, 1);
  EXPECT_TRUE(has(stats.out, "1\tGS401\t[error] host-sync\n")) << stats.out;
  EXPECT_FALSE(has(stats.out, "bug.py"));
}

TEST_F(CliTest, SuppressionCommentsAndNotices) {
  std::string suppressed = kBug;
  suppressed.replace(suppressed.find("total.item()"), 12, "total.item()  # noqa: E501, GS401");
  tree_.write("bug.py", suppressed);
  tree_.write("blob.py", std::string("\0\0\0", 3));
  CommandResult run = graphsafe({"check", "--format", "concise"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_FALSE(has(run.out, "GS401"));
  EXPECT_TRUE(has(run.out, "GS101"));
  EXPECT_TRUE(has(run.out, "(1 suppressed)")) << run.out;
  EXPECT_TRUE(has(run.err, "blob.py: notice: skipped: binary file")) << run.err;
}

TEST_F(CliTest, Colors) {
  tree_.write("bug.py", kBug);
  EXPECT_FALSE(has(graphsafe({"check"}).out, "\033["));
  EXPECT_TRUE(has(graphsafe({"check", "--color=always"}).out, "\033["));
  EXPECT_TRUE(has(graphsafe({"check", "--color", "always"}, "NO_COLOR=1").out, "\033["));
}

TEST_F(CliTest, RulesExplainAndVersion) {
  CommandResult rules = graphsafe({"rules"});
  EXPECT_EQ(rules.exit_code, 0);
  for (const RuleInfo& rule : RuleCatalog::instance().rules()) {
    EXPECT_TRUE(has(rules.out, rule.id + "  " + rule.name)) << rule.id;
  }
  EXPECT_TRUE(has(rules.out, "implemented"));

  CommandResult json = graphsafe({"rules", "--format", "json"});
  EXPECT_EQ(json.exit_code, 0);
  auto list = nlohmann::json::parse(json.out);
  ASSERT_EQ(list.size(), RuleCatalog::instance().rules().size());
  EXPECT_TRUE(list[0].contains("implemented"));
  EXPECT_TRUE(list[0].contains("languages"));

  CommandResult explain = graphsafe({"explain", "GS401"});
  EXPECT_EQ(explain.exit_code, 0) << explain.err;
  EXPECT_TRUE(has(explain.out, "GS401")) << explain.out;
  EXPECT_TRUE(has(explain.out, "host-sync")) << explain.out;
  EXPECT_EQ(graphsafe({"explain", "host-sync"}).out, explain.out);

  CommandResult unknown = graphsafe({"explain", "GS999"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_TRUE(has(unknown.err, "unknown rule 'GS999'"));

  CommandResult version = graphsafe({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out, std::string("graphsafe ") + GRAPHSAFE_VERSION + "\n");

  CommandResult help = graphsafe({"check", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(has(help.out, "--select"));
}

}  // namespace
}  // namespace graphsafe
