// Runs the graphsafe binary on small trees, as a user or CI would.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

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
  // The binary file is skipped, which leaves the run incomplete: exit 2, unless accepted.
  CommandResult run = graphsafe({"check", "--format", "concise"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(graphsafe({"check", "--format", "concise", "--allow-incomplete"}).exit_code, 1);
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

  // Rule IDs and names in any case; a near miss is suggested.
  EXPECT_EQ(graphsafe({"explain", "gs401"}).out, explain.out);
  EXPECT_EQ(graphsafe({"explain", "Host-Sync"}).out, explain.out);
  CommandResult typo = graphsafe({"explain", "GS4O1"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_TRUE(has(typo.err, "did you mean 'GS401'?")) << typo.err;

  CommandResult version = graphsafe({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out, std::string("graphsafe ") + GRAPHSAFE_VERSION + "\n");

  CommandResult help = graphsafe({"check", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(has(help.out, "--select"));
}

// Ruff's --force-exclude: pre-commit names every staged file, and an excluded one must not
// block the commit.
TEST_F(CliTest, ForceExcludeAppliesExcludeToNamedFiles) {
  tree_.write("gen/bug.py", kBug);
  tree_.write("src/bug.py", kBug);
  tree_.write(".graphsafe.yaml", "exclude: [\"gen/\"]\n");

  CommandResult named = graphsafe({"check", "gen/bug.py"});
  EXPECT_EQ(named.exit_code, 1) << named.err;  // without it, as before: named means analyzed
  EXPECT_TRUE(has(named.out, "gen/bug.py:7:")) << named.out;

  CommandResult forced = graphsafe({"check", "--force-exclude", "gen/bug.py"});
  EXPECT_EQ(forced.exit_code, 0) << forced.out << forced.err;
  EXPECT_EQ(forced.out, "");
  EXPECT_TRUE(has(forced.err, "No CUDA-graph hazards found in 0 files.")) << forced.err;

  CommandResult mixed = graphsafe({"check", "--force-exclude", "--", "gen/bug.py", "src/bug.py"});
  EXPECT_EQ(mixed.exit_code, 1);
  EXPECT_TRUE(has(mixed.out, "src/bug.py:7:")) << mixed.out;
  EXPECT_FALSE(has(mixed.out, "gen/bug.py")) << mixed.out;

  // --exclude on the command line counts too.
  CommandResult flag = graphsafe({"check", "--force-exclude", "--exclude", "src/", "src/bug.py"});
  EXPECT_EQ(flag.exit_code, 0) << flag.out;
}

// After `--` everything is a path: a staged file named like an option is analyzed, and the
// file the option would name is never written.
TEST_F(CliTest, OptionLikeFileNameAfterDoubleDashIsAFile) {
  tree_.write("--output=victim.py", kBug);
  tree_.write("victim.py", "keep = 1\n");
  auto names = [&] {
    std::set<std::string> found;
    for (const auto& entry : std::filesystem::directory_iterator(tree_.root())) {
      found.insert(entry.path().filename().string());
    }
    return found;
  };
  const std::set<std::string> before = names();

  CommandResult run = graphsafe({"check", "--no-cache", "--", "--output=victim.py"});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_TRUE(has(run.out, "--output=victim.py:7:")) << run.out;
  EXPECT_TRUE(has(run.out, "error[GS401]")) << run.out;
  EXPECT_EQ(tree_.read("victim.py"), "keep = 1\n");
  EXPECT_EQ(names(), before);

  // As the pre-commit hook's entry has it.
  CommandResult hook = graphsafe(
      {"check", "--force-exclude", "--no-cache", "--", "--output=victim.py", "victim.py"});
  EXPECT_EQ(hook.exit_code, 1) << hook.err;
  EXPECT_EQ(tree_.read("victim.py"), "keep = 1\n");
  EXPECT_EQ(names(), before);

  // An option left after `--` (a hook's `args`) is a missing path, and the error says why.
  CommandResult misplaced = graphsafe({"check", "--", "--select", "GS4", "victim.py"});
  EXPECT_EQ(misplaced.exit_code, 2);
  EXPECT_TRUE(has(misplaced.err, "--select: no such file or directory")) << misplaced.err;
  EXPECT_TRUE(has(misplaced.err, "read as a path")) << misplaced.err;
}

// A C++ file the run cannot analyze (the C++ frontend missing: GRAPHSAFE_CUDA_FRONTEND=none
// stands for a binary installed without libgraphsafe_cuda.so) is not a pass.
TEST_F(CliTest, CppFilesWithoutTheCppFrontendAreSkippedAndFailTheRun) {
  tree_.write("bug.py", kBug);
  tree_.write("csrc/k.cu",
              "#include <cuda_runtime.h>\n"
              "void run(cudaStream_t s, cudaGraph_t* g) {\n"
              "  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);\n"
              "  cudaDeviceSynchronize();\n"
              "  cudaStreamEndCapture(s, g);\n"
              "}\n");
  const std::string off = "GRAPHSAFE_CUDA_FRONTEND=none";

  CommandResult run = graphsafe({"check", "--no-cache"}, off);
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(has(run.out, "bug.py:7:")) << run.out;  // the Python files are still analyzed
  EXPECT_TRUE(has(run.out, "Found 2 errors in 1 file; 1 C++ file not analyzed: csrc/k.cu."))
      << run.out;
  EXPECT_TRUE(has(run.err, "graphsafe: notice: 1 C++ file not analyzed: ")) << run.err;
  EXPECT_TRUE(has(run.err, "GRAPHSAFE_CUDA_FRONTEND=none")) << run.err;
  EXPECT_TRUE(has(run.err, "graphsafe: error: 1 C++ file was not analyzed")) << run.err;

  // --exit-zero forgives findings, not files left unread.
  EXPECT_EQ(graphsafe({"check", "--no-cache", "--exit-zero"}, off).exit_code, 2);

  CommandResult json = graphsafe({"check", "--no-cache", "--format", "json"}, off);
  EXPECT_EQ(json.exit_code, 2);
  auto summary = nlohmann::json::parse(json.out)["summary"];
  EXPECT_EQ(summary["files"], 1) << summary;  // counted as skipped, not as analyzed
  EXPECT_EQ(summary["skipped"], 1) << summary;

  // No selected rule checks C++: the files are still named, and the run passes or fails on
  // its findings.
  CommandResult python_only = graphsafe({"check", "--no-cache", "--select", "GS101"}, off);
  EXPECT_EQ(python_only.exit_code, 1) << python_only.err;
  EXPECT_TRUE(has(python_only.out, "1 C++ file not analyzed: csrc/k.cu.")) << python_only.out;
  EXPECT_FALSE(has(python_only.err, "graphsafe: error:")) << python_only.err;

  // Excluded, they are not files of the run at all.
  CommandResult excluded = graphsafe({"check", "--no-cache", "--exclude", "*.cu"}, off);
  EXPECT_EQ(excluded.exit_code, 1) << excluded.err;
  EXPECT_FALSE(has(excluded.out + excluded.err, "not analyzed"));

  // And no baseline is written without them.
  CommandResult baseline =
      graphsafe({"check", "--no-cache", "--write-baseline", "baseline.json"}, off);
  EXPECT_EQ(baseline.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(tree_.path("baseline.json")));
}

// The real thing: a binary whose module is nowhere to be found says what is missing and every
// place it looked. Needs a private mount namespace (unshare -m, as root) to hide the build tree's
// module from a copy of the binary; skipped where there is none.
TEST_F(CliTest, MissingCppFrontendSaysWhereItWasLookedFor) {
  namespace fs = std::filesystem;
  const fs::path build = fs::path(GRAPHSAFE_BINARY).parent_path();
  const fs::path copy = output_.root() / "bin" / "graphsafe";
  fs::create_directories(copy.parent_path());
  fs::copy_file(GRAPHSAFE_BINARY, copy);
  fs::permissions(copy, fs::perms::owner_all, fs::perm_options::add);
  tree_.write("k.cu", "#include <cuda_runtime.h>\nvoid f() { cudaStreamBeginCapture(0, {}); }\n");
  std::string command =
      "unshare -m sh -c " +
      quote("mount -t tmpfs none " + quote(build.string()) + " || exit 77; cd " +
            quote(tree_.path()) + " && " + quote(copy.string()) + " check --no-cache k.cu") +
      " >" + quote(output_.path("stdout")) + " 2>" + quote(output_.path("stderr"));
  int status = std::system(command.c_str());
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::string err = output_.read("stderr");
  if (code == 77 || has(err, "unshare")) GTEST_SKIP() << "no private mount namespace: " << err;
  EXPECT_EQ(code, 2) << err;
  EXPECT_TRUE(has(err,
                  "libgraphsafe_cuda.so (the C++ frontend) was not found next to the "
                  "graphsafe binary or in GRAPHSAFE_CUDA_FRONTEND (looked for " +
                      (copy.parent_path() / "libgraphsafe_cuda.so").string()))
      << err;
  EXPECT_TRUE(has(err, "install it with graphsafe: `pip install graphsafe-cuda`")) << err;
  EXPECT_TRUE(has(err, "No CUDA-graph hazards found in 0 files; 1 C++ file not analyzed: k.cu."))
      << err;
}

TEST_F(CliTest, StatisticsAreNeverWrittenIntoAMachineReport) {
  tree_.write("bug.py", kBug);
  for (const char* format : {"sarif", "github", "gitlab", "junit", "lintrunner", "json-lines"}) {
    CommandResult run = graphsafe({"check", "--statistics", "--format", format, "-o", "x.out"});
    EXPECT_EQ(run.exit_code, 2) << format;
    EXPECT_TRUE(has(run.err, "--statistics:")) << run.err;
    EXPECT_FALSE(std::filesystem::exists(tree_.path("x.out"))) << format;
  }
  CommandResult json = graphsafe({"check", "--statistics", "--format", "json", "-o", "x.json"});
  EXPECT_EQ(json.exit_code, 1) << json.err;
  EXPECT_EQ(nlohmann::json::parse(tree_.read("x.json"))[0]["code"], "GS101");
  CommandResult concise = graphsafe({"check", "--statistics", "--format", "concise"});
  EXPECT_EQ(concise.exit_code, 1);
  EXPECT_TRUE(has(concise.out, "1\tGS401\t[error] host-sync\n")) << concise.out;
}

TEST_F(CliTest, NoticesNameTheirLocationOnce) {
  tree_.write("b.py",
              "import torch\n"
              "g = torch.cuda.CUDAGraph()\n"
              "with torch.cuda.graph(g):\n"
              "    y = torch.ones(2).item()\n"
              "def f(:\n"
              "    pass\n");
  CommandResult run = graphsafe({"check", "--no-cache", "b.py"});
  EXPECT_TRUE(std::regex_search(run.err, std::regex("b\\.py:[0-9]+: notice: syntax error")))
      << run.err;
  EXPECT_FALSE(has(run.err, "notice: b.py:")) << run.err;
}

TEST_F(CliTest, OutputFormatIsAnAliasOfFormat) {
  tree_.write("bug.py", kBug);
  CommandResult format = graphsafe({"check", "--no-cache", "--format", "concise"});
  CommandResult output_format = graphsafe({"check", "--no-cache", "--output-format", "concise"});
  CommandResult equals = graphsafe({"check", "--no-cache", "--output-format=json-lines"});
  EXPECT_EQ(output_format.exit_code, 1) << output_format.err;
  EXPECT_EQ(output_format.out, format.out);
  EXPECT_TRUE(has(output_format.out, "bug.py:7:13: GS401 [error]")) << output_format.out;
  EXPECT_TRUE(has(equals.out, "\"rule\":\"GS401\"") || has(equals.out, "\"GS401\"")) << equals.out;
  CommandResult bad = graphsafe({"check", "--output-format", "xml"});
  EXPECT_EQ(bad.exit_code, 2);
}

// force-color.org: FORCE_COLOR colors output that is not a terminal; no-color.org's NO_COLOR
// wins over it; --color never wins over both.
TEST_F(CliTest, ForceColorAndNoColor) {
  tree_.write("bug.py", kBug);
  const std::string escape = "\x1b[";
  EXPECT_FALSE(has(graphsafe({"check", "--no-cache"}, "NO_COLOR= FORCE_COLOR=").out, escape));
  CommandResult forced = graphsafe({"check", "--no-cache"}, "NO_COLOR= FORCE_COLOR=1");
  EXPECT_EQ(forced.exit_code, 1);
  EXPECT_TRUE(has(forced.out, escape + "")) << forced.out;
  EXPECT_FALSE(has(graphsafe({"check", "--no-cache"}, "NO_COLOR=1 FORCE_COLOR=1").out, escape));
  EXPECT_FALSE(
      has(graphsafe({"check", "--no-cache", "--color", "never"}, "NO_COLOR= FORCE_COLOR=1").out,
          escape));
  // A report written to a file is never colored by FORCE_COLOR.
  graphsafe({"check", "--no-cache", "-o", "report.txt"}, "NO_COLOR= FORCE_COLOR=1");
  EXPECT_FALSE(has(tree_.read("report.txt"), escape)) << tree_.read("report.txt");
}

TEST_F(CliTest, ExtendSelectAddsToTheSelection) {
  tree_.write("bug.py", kBug);
  auto rules_in = [&](const std::vector<std::string>& args) {
    std::vector<std::string> all = {"check", "--no-cache", "--format", "concise"};
    all.insert(all.end(), args.begin(), args.end());
    CommandResult run = graphsafe(all);
    std::string rules;
    if (has(run.out, "GS101")) rules += "GS101 ";
    if (has(run.out, "GS401")) rules += "GS401 ";
    return std::to_string(run.exit_code) + " " + rules;
  };
  EXPECT_EQ(rules_in({"--select", "GS4", "--extend-select", "GS101"}), "1 GS101 GS401 ");
  EXPECT_EQ(rules_in({"--extend-select", "GS101"}), "1 GS101 GS401 ");  // every rule already
  EXPECT_EQ(rules_in({"--select", "GS4", "--extend-select", "GS1", "--ignore", "GS101"}),
            "1 GS401 ");  // ignore still wins
  tree_.write(".graphsafe.yaml", "select: [GS4]\n");
  EXPECT_EQ(rules_in({}), "1 GS401 ");
  EXPECT_EQ(rules_in({"--extend-select=GS1"}), "1 GS101 GS401 ");
  CommandResult bad = graphsafe({"check", "--extend-select", "GS999"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(has(bad.err, "--extend-select: unknown rule code 'GS999'")) << bad.err;
}

TEST_F(CliTest, ShowFilesListsWhatWouldBeAnalyzed) {
  tree_.write("b.py", kBug);
  tree_.write("a/z.py", kClean);
  tree_.write("a/k.cu", "__global__ void k() {}\n");
  tree_.write("a/notes.txt", "not code\n");
  tree_.write("vendor/v.py", kBug);
  tree_.write(".gitignore", "ignored.py\n");
  tree_.write("ignored.py", kBug);
  tree_.write(".graphsafe.yaml", "exclude: [\"vendor/\"]\n");
  CommandResult files = graphsafe({"check", "--show-files"});
  EXPECT_EQ(files.exit_code, 0) << files.err;
  EXPECT_EQ(files.out, "a/k.cu\na/z.py\nb.py\n");
  EXPECT_EQ(files.err, "");  // nothing was analyzed
  EXPECT_FALSE(std::filesystem::exists(tree_.path(".graphsafe_cache")));
  CommandResult forced = graphsafe({"check", "--show-files", "--force-exclude", "vendor/v.py",
                                    "b.py"});
  EXPECT_EQ(forced.out, "b.py\n");
  CommandResult named = graphsafe({"check", "--show-files", "vendor/v.py"});
  EXPECT_EQ(named.out, "vendor/v.py\n");
}

TEST_F(CliTest, ShowSettingsPrintsTheResolvedConfiguration) {
  tree_.write("src/m.py", kBug);
  tree_.write(".graphsafe.yaml",
              "select: [GS4, GS1]\n"
              "ignore: [GS403]\n"
              "exclude: [\"vendor/\"]\n"
              "per-file-ignores:\n"
              "  \"tests/*.py\": [GS401]\n"
              "capture-entry-points: [\"pkg.runner.step\"]\n"
              "cxx-timeout: 20\n");
  CommandResult run =
      graphsafe({"check", "--show-settings", "--extra-arg=-DUSE_CUDA_GRAPH", "src"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  for (const char* line :
       {"configuration: .graphsafe.yaml\n", "paths: src\n", "select: GS4, GS1\n",
        "ignore: GS403\n", "exclude: vendor/\n", "  tests/*.py: GS401",
        "capture-entry-points: pkg.runner.step\n", "extra-arg: -DUSE_CUDA_GRAPH\n",
        "cxx-timeout: 20 s\n", "cxx-memory: 4096 MiB\n"}) {
    EXPECT_TRUE(has(run.out, line)) << line << " is missing from\n" << run.out;
  }
  EXPECT_FALSE(has(run.out, "GS401 [error]"));  // nothing analyzed
}

TEST_F(CliTest, StandardInputWithoutAFileNameIsAUsageError) {
  CommandResult run = graphsafe({"check", "-"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(has(run.err, "needs --stdin-filename PATH")) << run.err;
  CommandResult piped = graphsafe({"check", "-", "--stdin-filename", "m.py", "--format",
                                   "concise", "--no-cache"},
                                  "printf 'import torch\\nwith torch.cuda.graph(g):\\n    "
                                  "v = t.item()\\n' |");
  EXPECT_EQ(piped.exit_code, 1) << piped.err;
  EXPECT_TRUE(has(piped.out, "m.py:3:9: GS401")) << piped.out;
}

TEST_F(CliTest, UnusedSuppressionsAreReportedWhenAsked) {
  tree_.write("m.py",
              "import torch\n"
              "\n"
              "x = torch.ones(4, device=\"cuda\")\n"
              "g = torch.cuda.CUDAGraph()\n"
              "with torch.cuda.graph(g):\n"
              "    v = x.sum().item()  # graphsafe: ignore[GS401]\n"
              "    w = x * 2  # graphsafe: ignore[GS401]\n"
              "    u = x + 1  # noqa: GS101, GS203\n");
  CommandResult plain = graphsafe({"check", "--no-cache"});
  EXPECT_EQ(plain.exit_code, 0) << plain.out;
  CommandResult run = graphsafe({"check", "--format", "concise", "--report-unused-suppressions"});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_FALSE(has(run.out, "m.py:6:")) << run.out;  // used
  EXPECT_TRUE(has(run.out, "m.py:7:16: unused-suppression [warning] unused suppression: no "
                           "finding of GS401"))
      << run.out;
  EXPECT_TRUE(has(run.out, "m.py:8:16: unused-suppression [warning] unused suppression: no "
                           "finding of GS101"))
      << run.out;
  EXPECT_TRUE(has(run.out, "no finding of GS203")) << run.out;
  // A suppression of a rule that did not run is not unused: a run with the rule may need it.
  CommandResult selected = graphsafe(
      {"check", "--format", "concise", "--report-unused-suppressions", "--select", "GS4"});
  EXPECT_TRUE(has(selected.out, "m.py:7:16: unused-suppression")) << selected.out;
  EXPECT_FALSE(has(selected.out, "GS101")) << selected.out;
  EXPECT_FALSE(has(selected.out, "GS203")) << selected.out;
  CommandResult ignored = graphsafe(
      {"check", "--format", "concise", "--report-unused-suppressions", "--ignore", "GS401"});
  EXPECT_FALSE(has(ignored.out, "m.py:7:")) << ignored.out;
  EXPECT_TRUE(has(ignored.out, "m.py:8:16:")) << ignored.out;
}

// C++ blocks between NOLINTBEGIN(GS...) and NOLINTEND(GS...) are suppressed; an unmatched one
// is a notice naming its line.
TEST_F(CliTest, NolintBeginEndInCxx) {
  tree_.write("k.cu",
              "#include <cuda_runtime.h>\n"
              "__global__ void k(float* x) {}\n"
              "void run(cudaStream_t s, float* x) {\n"
              "  cudaGraph_t g;\n"
              "  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);\n"
              "  // NOLINTBEGIN(GS301)\n"
              "  k<<<1, 1>>>(x);\n"
              "  k<<<1, 1>>>(x);\n"
              "  // NOLINTEND(GS301)\n"
              "  k<<<1, 1>>>(x);\n"
              "  // NOLINTEND(GS401)\n"
              "  cudaStreamEndCapture(s, &g);\n"
              "}\n");
  CommandResult run = graphsafe({"check", "--no-cache", "--cuda-path", "none", "--format",
                                 "concise", "--report-unused-suppressions", "k.cu"});
  if (has(run.err, "not analyzed")) GTEST_SKIP() << "no C++ frontend in this build";
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_FALSE(has(run.out, "k.cu:7:")) << run.out;
  EXPECT_FALSE(has(run.out, "k.cu:8:")) << run.out;
  EXPECT_TRUE(has(run.out, "k.cu:10:3: GS301")) << run.out;
  EXPECT_FALSE(has(run.out, "unused-suppression")) << run.out;  // the block was used
  EXPECT_TRUE(has(run.out, "(2 suppressed)")) << run.out;
  EXPECT_TRUE(has(run.err, "k.cu:11: notice: unmatched NOLINTEND comment")) << run.err;
}

// pre-commit splits a long list of files into several runs. With --whole-project each run
// analyzes the whole project and reports the named files: a capture in one file that reaches
// code in another reports it whichever run names that file.
TEST_F(CliTest, WholeProjectGivesTheSameFindingsWhateverTheSplit) {
  tree_.mkdir(".git");
  tree_.write("pkg/__init__.py", "");
  tree_.write("pkg/helper.py",
              "import torch\n"
              "\n"
              "\n"
              "def run_captured(fn):\n"
              "    g = torch.cuda.CUDAGraph()\n"
              "    with torch.cuda.graph(g):\n"
              "        fn()\n"
              "    return g\n");
  tree_.write("pkg/caller.py",
              "import torch\n"
              "\n"
              "from pkg.helper import run_captured\n"
              "\n"
              "x = torch.ones(4, device=\"cuda\")\n"
              "\n"
              "\n"
              "def step():\n"
              "    return x.sum().item()\n"
              "\n"
              "\n"
              "run_captured(step)\n");
  tree_.write("pkg/other.py", kBug);
  const std::vector<std::string> files = {"pkg/__init__.py", "pkg/caller.py", "pkg/helper.py",
                                          "pkg/other.py"};
  auto findings = [&](std::vector<std::string> named, bool whole_project) {
    std::vector<std::string> args = {"check", "--format", "concise", "--quiet"};
    if (whole_project) args.push_back("--whole-project");
    args.push_back("--");
    args.insert(args.end(), named.begin(), named.end());
    CommandResult run = graphsafe(args);
    EXPECT_NE(run.exit_code, 2) << run.err;
    return run.out;
  };
  const std::string all = findings(files, true);
  EXPECT_TRUE(has(all, "pkg/caller.py:9:12: GS401")) << all;
  EXPECT_TRUE(has(all, "pkg/other.py:7:13: GS401")) << all;
  EXPECT_EQ(all, findings(files, false));
  // Split in two, as pre-commit does: the same findings, in the files each run names.
  const std::string first = findings({"pkg/__init__.py", "pkg/other.py"}, true);
  const std::string second = findings({"pkg/caller.py", "pkg/helper.py"}, true);
  EXPECT_EQ(second + first, all);
  EXPECT_FALSE(has(first, "caller.py")) << first;
  // Without it the caller named alone loses the finding its helper's capture makes.
  EXPECT_FALSE(has(findings({"pkg/caller.py"}, false), "caller.py:9")) << "cross-file";
  EXPECT_TRUE(has(findings({"pkg/caller.py"}, true), "pkg/caller.py:9:12: GS401"));
  // The summary counts the named files.
  CommandResult clean = graphsafe({"check", "--whole-project", "pkg/helper.py"});
  EXPECT_EQ(clean.exit_code, 0) << clean.out;
  EXPECT_TRUE(has(clean.err, "No CUDA-graph hazards found in 1 file.")) << clean.err;
}

// Every flag `graphsafe check --help` lists is in docs/usage.md's option table, and every flag
// of the table is one `check` accepts.
TEST_F(CliTest, UsageDocumentsEveryCheckFlag) {
  CommandResult help = graphsafe({"check", "--help"});
  ASSERT_EQ(help.exit_code, 0);
  std::set<std::string> in_help;
  std::istringstream lines(help.out.substr(help.out.find("Options:")));
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.starts_with("  -")) continue;  // option lines start with their flags
    std::string flags = line.substr(2, line.find(' ', 2) - 2);
    std::istringstream names(flags);
    for (std::string name; std::getline(names, name, ',');) in_help.insert(name);
  }
  ASSERT_TRUE(in_help.count("--select") && in_help.count("-j")) << help.out;

  std::ifstream doc(std::string(GRAPHSAFE_SOURCE_DIR) + "/docs/usage.md");
  std::string text((std::istreambuf_iterator<char>(doc)), std::istreambuf_iterator<char>());
  std::size_t table = text.find("| option | meaning |");
  ASSERT_NE(table, std::string::npos);
  std::set<std::string> in_doc;
  std::istringstream rows(text.substr(table));
  std::getline(rows, line);  // the header
  std::getline(rows, line);  // |---|---|
  const std::regex flag("`(-{1,2}[a-zA-Z][-a-zA-Z]*)");
  while (std::getline(rows, line) && line.starts_with("|")) {
    std::string first_cell = line.substr(1, line.find(" | ", 1));
    for (std::sregex_iterator it(first_cell.begin(), first_cell.end(), flag), end; it != end;
         ++it) {
      in_doc.insert((*it)[1]);
    }
  }
  for (const std::string& name : in_help) {
    EXPECT_TRUE(in_doc.count(name)) << name << " is missing from docs/usage.md's option table";
  }
  for (const std::string& name : in_doc) {
    EXPECT_TRUE(in_help.count(name)) << name << " is in docs/usage.md but not in check --help";
  }
}

}  // namespace
}  // namespace graphsafe
