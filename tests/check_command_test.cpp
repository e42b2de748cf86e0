#include "analyzer/cli/check_command.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "analyzer/output/atomic_file.h"
#include "analyzer/output/output_format.h"
#include "tests/sample_result.h"
#include "tests/temp_tree.h"

namespace graphsafe {
namespace {

using Codes = std::vector<std::string>;

TEST(CheckCommandTest, SplitsCodeLists) {
  EXPECT_EQ(splitCodeLists({"GS4,GS101", " GS2 , ", "GS301"}),
            (Codes{"GS4", "GS101", "GS2", "GS301"}));
  EXPECT_TRUE(splitCodeLists({"", ","}).empty());
}

TEST(CheckCommandTest, ValidatesRuleCodesAgainstTheCatalog) {
  EXPECT_EQ(validateRuleCodes({"GS401", "GS4", "GS1", "GS10"}, "--select"), "");
  for (const char* bad : {"GS999", "GS9", "GS", "gs401", "E501", "GS40x", "ALL"}) {
    std::string error = validateRuleCodes({bad}, "--ignore");
    EXPECT_NE(error.find("--ignore: unknown rule code '" + std::string(bad) + "'"),
              std::string::npos)
        << error;
  }
}

TEST(CheckCommandTest, ParsesByteSizes) {
  EXPECT_EQ(parseByteSize("1000"), 1000u);
  EXPECT_EQ(parseByteSize("512K"), 512u << 10);
  EXPECT_EQ(parseByteSize("8M"), 8u << 20);
  EXPECT_EQ(parseByteSize("8mb"), 8u << 20);
  EXPECT_EQ(parseByteSize("8MiB"), 8u << 20);
  EXPECT_EQ(parseByteSize("1G"), std::size_t{1} << 30);
  EXPECT_EQ(parseByteSize(" 20B "), 20u);
  for (const char* bad : {"", "M", "-1", "1.5M", "8X", "8 M B", "99999999999999999999"}) {
    EXPECT_FALSE(parseByteSize(bad)) << bad;
  }
}

TEST(CheckCommandTest, MapsOptionsOntoTheEngine) {
  CheckCommandOptions options;
  options.paths = {"src", "tests/x.py"};
  options.select = {"GS4,GS1"};
  options.ignore = {"GS403"};
  options.exclude = {"vendor/", ""};
  options.jobs = 3;
  options.max_file_size = "1M";
  EngineOptions engine;
  std::string error;
  ASSERT_TRUE(toEngineOptions(options, engine, error)) << error;
  EXPECT_EQ(engine.paths, (Codes{"src", "tests/x.py"}));
  EXPECT_EQ(engine.selection.select, (Codes{"GS4", "GS1"}));
  EXPECT_EQ(engine.selection.ignore, Codes{"GS403"});
  EXPECT_EQ(engine.exclude, Codes{"vendor/"});
  EXPECT_EQ(engine.jobs, 3u);
  EXPECT_EQ(engine.settings.max_file_bytes, 1u << 20);

  CheckCommandOptions defaults;
  EngineOptions plain;
  ASSERT_TRUE(toEngineOptions(defaults, plain, error));
  EXPECT_EQ(plain.paths, Codes{"."});
  EXPECT_EQ(plain.settings.max_file_bytes, AnalysisSettings{}.max_file_bytes);
}

TEST(CheckCommandTest, RejectsBadOptions) {
  auto failure = [](CheckCommandOptions options) {
    EngineOptions engine;
    std::string error;
    EXPECT_FALSE(toEngineOptions(options, engine, error));
    return error;
  };
  CheckCommandOptions options;
  options.select = {"GS999"};
  EXPECT_NE(failure(options).find("--select"), std::string::npos);
  options = {};
  options.format = "xml";
  EXPECT_NE(failure(options).find("--format"), std::string::npos);
  options = {};
  options.color = "sometimes";
  EXPECT_NE(failure(options).find("--color"), std::string::npos);
  options = {};
  options.max_file_size = "big";
  EXPECT_NE(failure(options).find("--max-file-size"), std::string::npos);
  options.max_file_size = "0";
  EXPECT_NE(failure(options).find("--max-file-size"), std::string::npos);
}

TEST(CheckCommandTest, CxxOptionsReachTheSettings) {
  testing::TempTree tree;
  tree.write("build/compile_commands.json", "[]");
  tree.write("cuda/include/cuda_runtime.h", "");
  CheckCommandOptions options;
  options.compile_commands_dir = tree.path("build");
  options.cuda_path = tree.path("cuda");
  options.show_compiler_errors = true;
  options.extra_args = {"-DUSE_CUDA_GRAPH", "-Iinclude"};
  options.extra_args_before = {"--target=x86_64-linux-gnu"};
  EngineOptions engine;
  std::string error;
  ASSERT_TRUE(toEngineOptions(options, engine, error)) << error;
  EXPECT_EQ(engine.settings.compile_commands_dir, tree.path("build"));
  EXPECT_EQ(engine.settings.cuda_path, tree.path("cuda"));
  EXPECT_TRUE(engine.settings.show_compiler_errors);
  EXPECT_EQ(engine.settings.extra_args, (Codes{"-DUSE_CUDA_GRAPH", "-Iinclude"}));
  EXPECT_EQ(engine.settings.extra_args_before, Codes{"--target=x86_64-linux-gnu"});
  options.cuda_path = "none";
  EXPECT_TRUE(toEngineOptions(options, engine, error)) << error;
}

TEST(CheckCommandTest, RejectsCxxDirectoriesThatAreNotWhatTheyClaim) {
  testing::TempTree tree;
  tree.write("empty/readme", "");
  auto failure = [](const CheckCommandOptions& options) {
    EngineOptions engine;
    std::string error;
    EXPECT_FALSE(toEngineOptions(options, engine, error));
    return error;
  };
  CheckCommandOptions options;
  options.compile_commands_dir = tree.path("missing");
  EXPECT_NE(failure(options).find("is not a directory"), std::string::npos);
  options.compile_commands_dir = tree.path("empty");
  EXPECT_NE(failure(options).find("holds no compile_commands.json"), std::string::npos);
  options = {};
  options.cuda_path = tree.path("empty");
  EXPECT_NE(failure(options).find("--cuda-path"), std::string::npos);
  options = {};
  options.extra_args = {""};
  EXPECT_NE(failure(options).find("--extra-arg"), std::string::npos);
}

TEST(CheckCommandTest, ColorChoice) {
  EXPECT_TRUE(useColor("always", false));
  EXPECT_FALSE(useColor("never", true));
  EXPECT_FALSE(useColor("auto", false));
  ::unsetenv("NO_COLOR");
  EXPECT_TRUE(useColor("auto", true));
  ::setenv("NO_COLOR", "1", 1);
  EXPECT_FALSE(useColor("auto", true));
  EXPECT_TRUE(useColor("always", true));
  ::setenv("NO_COLOR", "", 1);
  EXPECT_TRUE(useColor("auto", true));
  ::unsetenv("NO_COLOR");
}

TEST(CheckCommandTest, MissingPathIsAUsageError) {
  testing::TempTree tree;
  CheckCommandOptions options;
  options.paths = {tree.path("does-not-exist")};
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(runCheckCommand(options, out, err, false, false), 2);
  EXPECT_NE(err.str().find("graphsafe: error: "), std::string::npos);
  EXPECT_NE(err.str().find("no such file or directory"), std::string::npos);
  EXPECT_EQ(out.str(), "");
}

TEST(StatisticsOutputTest, CountsPerRuleMostFrequentFirst) {
  RunResult result = testing::sampleResult();
  std::ostringstream text;
  writeStatistics(result, text, false);
  EXPECT_EQ(text.str(), "2\tGS401\t[error] host-sync\n1\tGS102\t[warning] frozen-branch\n");
  std::ostringstream json;
  writeStatistics(result, json, true);
  auto list = nlohmann::json::parse(json.str());
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0],
            nlohmann::json(
                {{"code", "GS401"}, {"name", "host-sync"}, {"severity", "error"}, {"count", 2}}));
}

TEST(AtomicFileTest, WritesReplacesAndKeepsPermissions) {
  testing::TempTree tree;
  std::string path = tree.path("report.sarif");
  std::string error;
  ASSERT_TRUE(writeFileAtomically(path, "first", error)) << error;
  EXPECT_EQ(tree.read("report.sarif"), "first");
  ::chmod(path.c_str(), 0640);
  ASSERT_TRUE(writeFileAtomically(path, "second", error)) << error;
  EXPECT_EQ(tree.read("report.sarif"), "second");
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0640u);
  // No temporary file is left behind.
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(tree.root())) {
    ++entries;
  }
  EXPECT_EQ(entries, 1u);
}

TEST(AtomicFileTest, FailureLeavesNothingAndSaysWhy) {
  testing::TempTree tree;
  std::string error;
  EXPECT_FALSE(writeFileAtomically(tree.path("no/such/dir/out.json"), "x", error));
  EXPECT_NE(error.find("no/such/dir/out.json"), std::string::npos);
}

}  // namespace
}  // namespace graphsafe
