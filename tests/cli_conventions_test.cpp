// Ruff's command-line conventions where graphsafe has them: `--select ALL`, rule codes in any
// case, `graphsafe server` for the language server, and pre-commit's arguments (a hook's `args`
// then the staged files) read apart with --pre-commit.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "analyzer/cli/check_command.h"
#include "analyzer/cli/hook_arguments.h"
#include "tests/temp_tree.h"

namespace graphsafe {
namespace {

using Arguments = std::vector<std::string>;

TEST(CliConventionsTest, RuleCodesAreCanonical) {
  EXPECT_EQ(canonicalRuleCode("gs401"), "GS401");
  EXPECT_EQ(canonicalRuleCode("Gs4"), "GS4");
  EXPECT_EQ(canonicalRuleCode("ALL"), "GS");
  EXPECT_EQ(canonicalRuleCode("all"), "GS");
  EXPECT_EQ(splitCodeLists({"gs4, all", "GS101"}), (Arguments{"GS4", "GS", "GS101"}));
  EXPECT_EQ(validateRuleCodes({"GS"}, "--select"), "");
  EXPECT_EQ(validateRuleCodes(splitCodeLists({"gs401"}), "--select"), "");
  EXPECT_NE(validateRuleCodes(splitCodeLists({"gs999"}), "--select"), "");
  EXPECT_NE(validateRuleCodes(splitCodeLists({"alll"}), "--select"), "");
}

TEST(CliConventionsTest, SelectAllSelectsEveryRule) {
  CheckCommandOptions options;
  options.select = {"ALL"};
  options.ignore = {"gs4"};
  EngineOptions engine;
  std::string error;
  ASSERT_TRUE(toEngineOptions(options, engine, error)) << error;
  EXPECT_TRUE(engine.selection.enabled("GS101"));
  EXPECT_TRUE(engine.selection.enabled("GS502"));
  EXPECT_FALSE(engine.selection.enabled("GS401"));
}

class HookArgumentsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    previous_ = std::filesystem::current_path();
    std::filesystem::current_path(tree_.root());
    tree_.write("--output=victim.py", "x = 1\n");
    tree_.write("a.py", "x = 1\n");
    tree_.write(".graphsafe-ci.yaml", "select: [GS4]\n");
  }
  void TearDown() override { std::filesystem::current_path(previous_); }
  testing::TempTree tree_;
  std::filesystem::path previous_;
};

TEST_F(HookArgumentsTest, WithoutTheFlagNothingMoves) {
  Arguments given = {"check", "--fix", "--output=victim.py", "a.py"};
  EXPECT_EQ(hookArguments(given), given);
  Arguments other = {"rules", "--pre-commit", "--output=victim.py"};
  EXPECT_EQ(hookArguments(other), other);
}

TEST_F(HookArgumentsTest, ExistingFilesArePathsAndTheRestOptions) {
  EXPECT_EQ(hookArguments({"check", "--pre-commit", "--fix", "--select", "GS4",
                           "--output=victim.py", "a.py"}),
            (Arguments{"check", "--pre-commit", "--fix", "--select", "GS4", "a.py", "--",
                       "--output=victim.py"}));
  // A value that is a file stays the option's value; only what starts with - can be mistaken.
  EXPECT_EQ(hookArguments({"check", "--pre-commit", "--config", ".graphsafe-ci.yaml", "a.py"}),
            (Arguments{"check", "--pre-commit", "--config", ".graphsafe-ci.yaml", "a.py"}));
  // After a `--` of the command line's own, everything was a path already.
  EXPECT_EQ(hookArguments({"check", "--pre-commit", "--output=victim.py", "--", "-x.py"}),
            (Arguments{"check", "--pre-commit", "--", "--output=victim.py", "-x.py"}));
  // An option that names no file is an option, even one that looks like a path.
  EXPECT_EQ(hookArguments({"check", "--pre-commit", "--output=report.txt", "a.py"}),
            (Arguments{"check", "--pre-commit", "--output=report.txt", "a.py"}));
}

TEST_F(HookArgumentsTest, AStagedFileNamedLikeTheFlagIsAFile) {
  tree_.write("--pre-commit", "x = 1\n");
  EXPECT_EQ(hookArguments({"check", "--pre-commit", "--pre-commit"}),
            (Arguments{"check", "--pre-commit", "--", "--pre-commit"}));
}

}  // namespace
}  // namespace graphsafe
