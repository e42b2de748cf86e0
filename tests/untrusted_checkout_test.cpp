// `graphsafe check` on a checkout that is a stranger's, as CI runs it on a pull request: what
// the checkout holds (links, file names, configuration, a cache directory, code the analysis
// cannot finish) never makes graphsafe write outside it, print what the user did not name,
// send escape sequences to the terminal, or pass a run that left code unanalyzed.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "analyzer/cli/check_command.h"
#include "tests/temp_tree.h"

namespace graphsafe {
namespace {

namespace fs = std::filesystem;
using testing::ScopedCurrentDirectory;
using testing::TempTree;

constexpr const char* kSync =
    "import torch\n"
    "x = torch.ones(4, device=\"cuda\")\n"
    "g = torch.cuda.CUDAGraph()\n"
    "with torch.cuda.graph(g):\n"
    "    torch.cuda.synchronize()\n";

struct CheckRun {
  int code = -1;
  std::string out;
  std::string err;
};

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The checkout is `repo/`, the current directory; the user's own files are in `home/`.
class UntrustedCheckoutTest : public ::testing::Test {
 protected:
  UntrustedCheckoutTest() {
    tree_.mkdir("repo");
    tree_.write("home/bin/tool", "#!/bin/sh\necho the user's tool\n");
    ::chmod(tree_.path("home/bin/tool").c_str(), 0755);
    tree_.mkdir("user-config");
  }

  CheckRun check(CheckCommandOptions options) {
    ScopedCurrentDirectory in(tree_.root() / "repo");
    options.no_cache = options.cache_dir.empty();
    options.jobs = 1;
    if (options.user_config.empty()) options.user_config = user_config_;  // else none
    std::ostringstream out;
    std::ostringstream err;
    std::istringstream input;
    CheckRun run;
    run.code = runCheckCommand(options, out, err, false, false, input);
    run.out = out.str();
    run.err = err.str();
    return run;
  }
  CheckRun check(std::vector<std::string> paths = {}) {
    CheckCommandOptions options;
    options.paths = std::move(paths);
    return check(options);
  }

  void write(const std::string& relative, const std::string& text) {
    tree_.write("repo/" + relative, text);
  }
  void link(const std::string& target, const std::string& relative) {
    fs::create_symlink(target, tree_.root() / "repo" / relative);
  }
  void userConfig(const std::string& text) {
    tree_.write("user-config/graphsafe.yaml", text);
    user_config_ = tree_.path("user-config/graphsafe.yaml");
  }
  std::string read(const std::string& relative) const { return tree_.read(relative); }
  std::string tool() const { return tree_.read("home/bin/tool"); }

  TempTree tree_;
  std::string user_config_;  // none: the test environment's XDG_CONFIG_HOME holds none
};

constexpr const char* kTool = "#!/bin/sh\necho the user's tool\n";

// ---- writes ---------------------------------------------------------------------------------

TEST_F(UntrustedCheckoutTest, ReportOverAPlantedLinkDoesNotOverwriteTheUsersFile) {
  write("a.py", kSync);
  link("../home/bin/tool", "report.txt");
  CheckCommandOptions options;
  options.output = "report.txt";
  CheckRun run = check(options);
  EXPECT_EQ(run.code, 1) << run.err;
  EXPECT_EQ(tool(), kTool);
  EXPECT_FALSE(fs::is_symlink(tree_.root() / "repo/report.txt"));
  EXPECT_TRUE(has(read("repo/report.txt"), "GS401")) << read("repo/report.txt");
}

TEST_F(UntrustedCheckoutTest, BaselineOverAPlantedLinkDoesNotOverwriteTheUsersFile) {
  write("a.py", kSync);
  link("../home/bin/tool", "baseline.json");
  CheckCommandOptions options;
  options.write_baseline = "baseline.json";
  CheckRun run = check(options);
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(tool(), kTool);
  EXPECT_TRUE(has(read("repo/baseline.json"), "GS401"));
}

TEST_F(UntrustedCheckoutTest, AReportIntoADirectoryLinkedOutOfTheCheckoutIsRefused) {
  write("a.py", kSync);
  link("../home/bin", "reports");
  CheckCommandOptions options;
  options.output = "reports/tool";
  CheckRun run = check(options);
  EXPECT_EQ(run.code, 2);
  EXPECT_TRUE(has(run.err, "leads out of")) << run.err;
  EXPECT_EQ(tool(), kTool);
}

constexpr const char* kKept =
    "import torch\n"
    "x = torch.zeros(1, device=\"cuda\")\n"
    "g = torch.cuda.CUDAGraph()\n"
    "with torch.cuda.graph(g):\n"
    "    y = x ** 2 + 1\n"
    "ys = []\n"
    "for i in range(3):\n"
    "    x.fill_(i)\n"
    "    g.replay()\n"
    "    ys.append(y)\n";

TEST_F(UntrustedCheckoutTest, FixNeverWritesThroughALinkOutOfTheCheckout) {
  tree_.write("home/kept.py", kKept);
  link("../home/kept.py", "kept.py");
  // Walked, the link out of the checkout is not the project's code.
  CheckCommandOptions walked;
  walked.fix = true;
  walked.select = {"GS203"};
  CheckRun run = check(walked);
  EXPECT_TRUE(has(run.err, "outside the project")) << run.err;
  EXPECT_EQ(read("home/kept.py"), kKept);
  // Named (pre-commit names every staged file, links included): analyzed, never fixed there.
  CheckCommandOptions named = walked;
  named.paths = {"kept.py"};
  run = check(named);
  EXPECT_TRUE(has(run.err, "not fixed")) << run.err;
  EXPECT_TRUE(has(run.out, "GS203")) << run.out;
  EXPECT_EQ(read("home/kept.py"), kKept);
}

TEST_F(UntrustedCheckoutTest, FixEditsALinkedFileOfTheCheckoutItself) {
  write("src/kept.py", kKept);
  link("src/kept.py", "kept.py");
  CheckCommandOptions options;
  options.fix = true;
  options.select = {"GS203"};
  options.paths = {"kept.py"};
  CheckRun run = check(options);
  EXPECT_EQ(run.code, 0) << run.out << run.err;
  EXPECT_TRUE(fs::is_symlink(tree_.root() / "repo/kept.py"));
  EXPECT_TRUE(has(read("repo/src/kept.py"), "ys.append(y.clone())"));
}

// ---- what is printed ------------------------------------------------------------------------

TEST_F(UntrustedCheckoutTest, AFileNameIsQuotedSoThatNoReportLineIsACommand) {
  write("a;touch X #.py", kSync);
  CheckRun run = check();
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.out.rfind("'a;touch X #.py':5:5: error[GS401]", 0), 0u) << run.out;
}

TEST_F(UntrustedCheckoutTest, EscapeSequencesInTheCodeNeverReachTheTerminal) {
  // OSC 52 (write the clipboard) and a title change, in a string on the finding's line, in the
  // message (through the call's text) and in a notice (an unknown rule in a comment).
  const std::string osc52 = "\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2gK\x07";
  write("a.py", std::string("import torch\nx = torch.ones(4, device=\"cuda\")\n"
                            "g = torch.cuda.CUDAGraph()\nwith torch.cuda.graph(g):\n"
                            "    torch.cuda.synchronize(); s = \"") +
                    osc52 + "\"\n    float(x) + len(\"" + osc52 + "\")\n" +
                    "    pass  # graphsafe: ignore[GS9\x1b[2J]\n");
  CheckRun run = check();
  EXPECT_EQ(run.code, 1) << run.err;
  EXPECT_EQ(run.out.find('\x1b'), std::string::npos) << run.out;
  EXPECT_EQ(run.err.find('\x1b'), std::string::npos) << run.err;
  EXPECT_EQ(run.out.find('\x07'), std::string::npos) << run.out;
  EXPECT_TRUE(has(run.out, "\\x1b]52;c;")) << run.out;
}

TEST_F(UntrustedCheckoutTest, AConfigurationLinkedToAnotherFileNeverPrintsItsContent) {
  tree_.write("home/.git-credentials", "https://user:ghp_SECRET1234567890@github.com\n");
  write("a.py", kSync);
  link("../home/.git-credentials", ".graphsafe.yaml");
  CheckRun run = check();
  EXPECT_EQ(run.code, 2);
  EXPECT_TRUE(has(run.err, ".graphsafe.yaml")) << run.err;
  EXPECT_FALSE(has(run.err, "SECRET")) << run.err;
  EXPECT_FALSE(has(run.err, "github.com")) << run.err;
}

TEST_F(UntrustedCheckoutTest, AConfigurationLinkedOutOfTheCheckoutIsNotRead) {
  // A file shaped like settings would have its keys quoted ("unknown key 'ghp_...'").
  tree_.write("home/tokens.yaml", "ghp_SECRET1234567890: github\n");
  write("a.py", kSync);
  link("../home/tokens.yaml", ".graphsafe.yaml");
  CheckRun run = check();
  EXPECT_EQ(run.code, 2);
  EXPECT_TRUE(has(run.err, ".graphsafe.yaml: a symbolic link to a file outside the repository"))
      << run.err;
  EXPECT_FALSE(has(run.err, "SECRET")) << run.err;

  // The user may name a configuration anywhere; a link within the checkout is the checkout's.
  CheckCommandOptions named;
  named.config = tree_.path("home/tokens.yaml");
  run = check(named);
  EXPECT_TRUE(has(run.err, "unknown key")) << run.err;
  fs::remove(tree_.root() / "repo/.graphsafe.yaml");
  write("config/graphsafe.yaml", "ignore: [GS401]\n");
  link("config/graphsafe.yaml", ".graphsafe.yaml");
  run = check();
  EXPECT_EQ(run.code, 0) << run.err;
}

// ---- bounds ---------------------------------------------------------------------------------

TEST_F(UntrustedCheckoutTest, ARepositoryCannotLiftTheBoundsOfACxxUnit) {
  write("a.py", kSync);
  for (const char* setting : {"cxx-timeout: 0\n", "cxx-memory: 0\n", "cxx-timeout: 100000\n"}) {
    SCOPED_TRACE(setting);
    write(".graphsafe.yaml", setting);
    CheckRun run = check();
    EXPECT_EQ(run.code, 2);
    EXPECT_TRUE(has(run.err, "--cxx-")) << run.err;
  }
  write(".graphsafe.yaml", "cxx-timeout: 300\ncxx-memory: 8192\n");
  CheckCommandOptions settings;
  settings.show_settings = true;
  CheckRun run = check(settings);
  EXPECT_TRUE(has(run.out, "cxx-timeout: 300 s")) << run.out;
  EXPECT_TRUE(has(run.out, "cxx-memory: 8192 MiB")) << run.out;
}

TEST_F(UntrustedCheckoutTest, TheUsersBoundsWinOverTheRepositorys) {
  write(".graphsafe.yaml", "cxx-timeout: 300\ncxx-memory: 8192\n");
  userConfig("cxx-timeout: 0\ncxx-memory: 2048\n");
  CheckCommandOptions settings;
  settings.show_settings = true;
  CheckRun run = check(settings);
  EXPECT_TRUE(has(run.out, "cxx-timeout: (no bound)")) << run.out;
  EXPECT_TRUE(has(run.out, "cxx-memory: 2048 MiB")) << run.out;
  // The command line wins over both.
  settings.cxx_timeout_seconds = 20;
  settings.cxx_memory_mib = 1024;
  run = check(settings);
  EXPECT_TRUE(has(run.out, "cxx-timeout: 20 s")) << run.out;
  EXPECT_TRUE(has(run.out, "cxx-memory: 1024 MiB")) << run.out;
}

TEST_F(UntrustedCheckoutTest, TheUsersConfigurationHoldsOnlyWhatARepositoryIsNotTrustedWith) {
  write("a.py", kSync);
  userConfig("select: [GS401]\n");
  CheckRun run = check();
  EXPECT_EQ(run.code, 2);
  EXPECT_TRUE(has(run.err, "project setting")) << run.err;
}

// ---- incomplete runs are not passes ---------------------------------------------------------

// Skipped: not UTF-8 (a Latin-1 comment), so not one line of it is analyzed.
constexpr const char* kSkipped =
    "import torch\n"
    "# caf\xe9\n"
    "g = torch.cuda.CUDAGraph()\n"
    "with torch.cuda.graph(g):\n"
    "    torch.cuda.synchronize()\n";

TEST_F(UntrustedCheckoutTest, ASkippedFileIsNoPass) {
  write("a.py", kSkipped);
  write("b.py", "x = 1\n");
  CheckRun run = check();
  EXPECT_EQ(run.code, 2) << run.out << run.err;
  EXPECT_TRUE(has(run.err, "a.py:")) << run.err;
  EXPECT_TRUE(has(run.err, "not analyzed completely")) << run.err;
  EXPECT_TRUE(has(run.err, "--allow-incomplete")) << run.err;
  CheckCommandOptions allowed;
  allowed.allow_incomplete = true;
  run = check(allowed);
  EXPECT_NE(run.code, 2) << run.err;
  EXPECT_TRUE(has(run.out + run.err, "1 file not analyzed completely")) << run.out << run.err;
}

TEST_F(UntrustedCheckoutTest, ASyntaxErrorIsANoticeAndTheRestOfTheFileIsAnalyzed) {
  // tree-sitter recovers the rest of the file, and rejects some valid Python: not incomplete.
  write("a.py", std::string(kSync) + "def f(x):\n    return None, *(None,) * len(x)\n");
  CheckRun run = check();
  EXPECT_EQ(run.code, 1) << run.err;
  EXPECT_TRUE(has(run.err, "syntax error")) << run.err;
  EXPECT_TRUE(has(run.out, "GS401")) << run.out;
}

TEST_F(UntrustedCheckoutTest, AFileNestedPastTheParsersLimitIsNoPass) {
  std::string text = std::string(kSync);
  for (int depth = 0; depth < 600; ++depth) text += std::string(depth, ' ') + "if x:\n";
  text += std::string(600, ' ') + "pass\n";
  write("deep.py", text);
  CheckRun run = check();
  EXPECT_EQ(run.code, 2) << run.err;
  EXPECT_TRUE(has(run.err, "deep.py: notice: skipped")) << run.err;
}

TEST_F(UntrustedCheckoutTest, TheJsonAndSarifReportsSayTheRunIsIncomplete) {
  write("a.py", kSkipped);
  CheckCommandOptions json;
  json.format = "json";
  CheckRun run = check(json);
  EXPECT_EQ(run.code, 2);
  nlohmann::json document = nlohmann::json::parse(run.out);
  EXPECT_EQ(document["summary"]["skipped"], 1);
  EXPECT_EQ(document["summary"]["incomplete"], 1);
  EXPECT_EQ(document["notices"][0]["incomplete"], true);

  CheckCommandOptions sarif;
  sarif.format = "sarif";
  run = check(sarif);
  document = nlohmann::json::parse(run.out);
  const nlohmann::json& invocation = document["runs"][0]["invocations"][0];
  EXPECT_EQ(invocation["executionSuccessful"], false);
  ASSERT_FALSE(invocation["toolExecutionNotifications"].empty());
  EXPECT_EQ(invocation["toolExecutionNotifications"][0]["level"], "error");
}

TEST_F(UntrustedCheckoutTest, ACleanCompleteRunStillPasses) {
  write("a.py", "x = 1\n");
  CheckCommandOptions sarif;
  sarif.format = "sarif";
  CheckRun run = check(sarif);
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(nlohmann::json::parse(run.out)["runs"][0]["invocations"][0]["executionSuccessful"],
            true);
}

TEST_F(UntrustedCheckoutTest, ABaselineOfAnIncompleteRunIsNotWrittenUnseen) {
  write("a.py", kSync);
  write("b.py", kSkipped);
  CheckCommandOptions options;
  options.write_baseline = "baseline.json";
  CheckRun run = check(options);
  EXPECT_EQ(run.code, 2);
  EXPECT_TRUE(has(run.err, "b.py:")) << run.err;  // the notice is printed
  EXPECT_TRUE(has(run.err, "baseline was not written")) << run.err;
  EXPECT_FALSE(fs::exists(tree_.root() / "repo/baseline.json"));
  options.allow_incomplete = true;
  run = check(options);
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_TRUE(fs::exists(tree_.root() / "repo/baseline.json"));
}

TEST_F(UntrustedCheckoutTest, OnlyTheUserCanAcceptAnIncompleteRun) {
  write("a.py", kSkipped);
  write(".graphsafe.yaml", "allow-incomplete: true\n");
  CheckRun run = check();
  EXPECT_EQ(run.code, 2);
  EXPECT_TRUE(has(run.err, "allow-incomplete")) << run.err;
  fs::remove(tree_.root() / "repo/.graphsafe.yaml");
  userConfig("allow-incomplete: true\n");
  run = check();
  EXPECT_NE(run.code, 2) << run.err;
}

}  // namespace
}  // namespace graphsafe
