#include "analyzer/cli/check_command.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
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
  // GS, the prefix of every rule, is how `ALL` reads once canonical (canonicalRuleCode); the
  // codes given here are canonical already, so lower case and ALL itself are not.
  EXPECT_EQ(validateRuleCodes({"GS"}, "--select"), "");
  for (const char* bad : {"GS999", "GS9", "G", "gs401", "E501", "GS40x", "ALL"}) {
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
  options.extra_args = {"-DUSE_CUDA_GRAPH", "-Iinclude", "-isystem", "third_party/x",
                        "-include=pre.h", "-I/abs", "-Wall"};
  options.extra_args_before = {"--target=x86_64-linux-gnu"};
  EngineOptions engine;
  std::string error;
  ASSERT_TRUE(toEngineOptions(options, engine, error)) << error;
  EXPECT_EQ(engine.settings.compile_commands_dir, tree.path("build"));
  EXPECT_EQ(engine.settings.cuda_path, tree.path("cuda"));
  EXPECT_TRUE(engine.settings.show_compiler_errors);
  // Include paths are the working directory's, whichever directory a file's command runs in.
  const std::string cwd = std::filesystem::current_path().string();
  EXPECT_EQ(engine.settings.extra_args,
            (Codes{"-DUSE_CUDA_GRAPH", "-I" + cwd + "/include", "-isystem", cwd + "/third_party/x",
                   "-include", cwd + "/pre.h", "-I/abs", "-Wall"}));
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
  ::unsetenv("FORCE_COLOR");
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

// force-color.org: a non-empty FORCE_COLOR colors output that is not a terminal; NO_COLOR wins
// over it, and --color never over both.
TEST(CheckCommandTest, ForceColor) {
  ::unsetenv("NO_COLOR");
  ::setenv("FORCE_COLOR", "1", 1);
  EXPECT_TRUE(useColor("auto", false));
  EXPECT_FALSE(useColor("never", false));
  ::setenv("NO_COLOR", "1", 1);
  EXPECT_FALSE(useColor("auto", false));
  EXPECT_FALSE(useColor("auto", true));
  EXPECT_TRUE(useColor("always", false));
  ::unsetenv("NO_COLOR");
  ::setenv("FORCE_COLOR", "", 1);
  EXPECT_FALSE(useColor("auto", false));
  ::unsetenv("FORCE_COLOR");
}

TEST(CheckCommandTest, ExtendSelectCodesAreValidated) {
  CheckCommandOptions options;
  options.extend_select = {"GS4,GS999"};
  EngineOptions engine;
  std::string error;
  EXPECT_FALSE(toEngineOptions(options, engine, error));
  EXPECT_NE(error.find("--extend-select: unknown rule code 'GS999'"), std::string::npos) << error;
}

TEST(CheckCommandTest, ProjectRootIsTheConfigurationsDirectoryElseTheRepository) {
  testing::TempTree tree;
  tree.mkdir("repo/.git");
  tree.write("repo/pkg/sub/a.py", "x = 1\n");
  tree.write("repo/pkg/.graphsafe.yaml", "select: [GS4]\n");
  tree.write("loose/b.py", "x = 1\n");
  testing::ScopedCurrentDirectory cwd(tree.root());
  EXPECT_EQ(projectRoot("repo/pkg/sub/a.py", std::nullopt), "repo");
  EXPECT_EQ(projectRoot("repo/pkg/sub", std::nullopt), "repo");
  EXPECT_EQ(projectRoot("repo/pkg/sub/a.py", std::string("repo/pkg/.graphsafe.yaml")), "repo/pkg");
  EXPECT_EQ(projectRoot("loose/b.py", std::nullopt), ".");
  testing::ScopedCurrentDirectory inside(tree.root() / "repo" / "pkg" / "sub");
  EXPECT_EQ(projectRoot("a.py", std::nullopt), (tree.root() / "repo").lexically_normal().string());
  EXPECT_EQ(projectRoot("a.py", std::string("../.graphsafe.yaml")),
            (tree.root() / "repo" / "pkg").lexically_normal().string());
  testing::ScopedCurrentDirectory top(tree.root() / "repo");
  EXPECT_EQ(projectRoot("pkg/sub/a.py", std::nullopt), ".");
}

TEST(CheckCommandTest, WritesTheResolvedSettings) {
  EngineOptions engine;
  engine.paths = {"src"};
  engine.selection.select = {"GS4", "GS101"};
  engine.selection.ignore = {"GS403"};
  engine.exclude = {"vendor/"};
  engine.per_file_ignores = {{"tests/*.py", {"GS401"}, "proj"}};
  engine.severity_overrides = {{"GS3", Severity::kWarning}};
  engine.settings.capture_entry_points = {"pkg.run:step"};
  engine.settings.extra_sync_apis = {".wait"};
  engine.settings.extra_state_apis = {"pkg.tick"};
  engine.settings.capture_flags = {".capturing"};
  engine.settings.environment = {{"DEBUG", "1"}};
  engine.settings.extra_args = {"-DUSE_CUDA_GRAPH"};
  engine.settings.cxx_timeout_ms = 30'000;
  engine.settings.cxx_memory_bytes = std::size_t{2} << 30;
  std::ostringstream out;
  writeSettings(engine, std::string("proj/.graphsafe.yaml"), out);
  const std::string text = out.str();
  for (const char* line :
       {"configuration: proj/.graphsafe.yaml\n", "select: GS4, GS101\n", "ignore: GS403\n",
        "exclude: vendor/\n", "  tests/*.py: GS401 (relative to proj)\n", "  GS3: warning\n",
        "capture-entry-points: pkg.run:step\n", "extra-sync-apis: .wait\n",
        "extra-state-apis: pkg.tick\n", "capture-flags: .capturing\n",
        "environment: DEBUG=1\n", "extra-arg: -DUSE_CUDA_GRAPH\n", "extra-arg-before: (none)\n",
        "cuda-path: (detected)\n", "cxx-timeout: 30 s\n", "cxx-memory: 2048 MiB\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << " is missing from\n" << text;
  }
  std::ostringstream defaults;
  writeSettings(EngineOptions{}, std::nullopt, defaults);
  EXPECT_NE(defaults.str().find("configuration: (none)\n"), std::string::npos) << defaults.str();
  EXPECT_NE(defaults.str().find("select: (every rule)\n"), std::string::npos) << defaults.str();
}

constexpr const char* kStdinHazard =
    "import torch\n"
    "\n"
    "x = torch.ones(4, device=\"cuda\")\n"
    "g = torch.cuda.CUDAGraph()\n"
    "with torch.cuda.graph(g):\n"
    "    y = x.sum().item()\n";

// `-` with --stdin-filename: standard input is analyzed as that file, under its configuration.
TEST(CheckCommandTest, ReadsStandardInputAsTheNamedFile) {
  testing::TempTree tree;
  tree.write("proj/.graphsafe.yaml", "per-file-ignores:\n  \"tests/*.py\": [GS401]\n");
  testing::ScopedCurrentDirectory cwd(tree.root());
  auto run = [&](const std::string& name, int expected_code) {
    CheckCommandOptions options;
    options.paths = {"-"};
    options.stdin_filename = name;
    options.format = "concise";
    options.no_cache = true;
    std::istringstream in(kStdinHazard);
    std::ostringstream out;
    std::ostringstream err;
    EXPECT_EQ(runCheckCommand(options, out, err, false, false, in), expected_code) << err.str();
    return out.str();
  };
  // The file need not exist; its path names the finding.
  EXPECT_NE(run("proj/src/model.py", 1).find("proj/src/model.py:6:9: GS401"), std::string::npos);
  // The per-file-ignores of proj/.graphsafe.yaml apply by the path.
  EXPECT_EQ(run("proj/tests/test_model.py", 0), "");
}

TEST(CheckCommandTest, StandardInputNeedsItsFileName) {
  auto failure = [](std::vector<std::string> paths, std::string stdin_filename) {
    CheckCommandOptions options;
    options.paths = std::move(paths);
    options.stdin_filename = std::move(stdin_filename);
    std::istringstream in("x = 1\n");
    std::ostringstream out;
    std::ostringstream err;
    EXPECT_EQ(runCheckCommand(options, out, err, false, false, in), 2);
    EXPECT_EQ(out.str(), "");
    return err.str();
  };
  EXPECT_NE(failure({"-"}, "").find("reading standard input (`-`) needs --stdin-filename PATH"),
            std::string::npos);
  EXPECT_NE(failure({"-", "a.py"}, "x.py").find("`-` (standard input) must be the only path"),
            std::string::npos);
  EXPECT_NE(failure({"a.py"}, "x.py").find("give `-` as the only path"), std::string::npos);
  EXPECT_NE(failure({"-"}, "notes.txt").find("neither a Python nor a C++ file"),
            std::string::npos);
}

// With --force-exclude, standard input named as an excluded file is not analyzed (as Ruff).
TEST(CheckCommandTest, ForceExcludeAppliesToTheStdinFileName) {
  testing::TempTree tree;
  testing::ScopedCurrentDirectory cwd(tree.root());
  CheckCommandOptions options;
  options.paths = {"-"};
  options.stdin_filename = "generated/model.py";
  options.exclude = {"generated/"};
  options.force_exclude = true;
  options.no_cache = true;
  std::istringstream in(kStdinHazard);
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(runCheckCommand(options, out, err, false, false, in), 0) << err.str();
  EXPECT_EQ(out.str(), "");
  options.force_exclude = false;
  std::istringstream again(kStdinHazard);
  EXPECT_EQ(runCheckCommand(options, out, err, false, false, again), 1) << err.str();
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
