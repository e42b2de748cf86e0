// What the language server's workspace analysis stands on: lowered files kept between runs
// (a kept model gives exactly the findings of a fresh lowering, and any change to what it was
// lowered from lowers it again), workspace files re-read only when their stamps change, and a
// run that stops when it is cancelled.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/engine/engine.h"
#include "analyzer/engine/file_walker.h"
#include "analyzer/engine/lowering_cache.h"
#include "analyzer/engine/result_cache.h"
#include "analyzer/lsp/workspace_files.h"
#include "tests/temp_tree.h"

namespace graphsafe {
namespace {

constexpr const char* kHelpers =
    "def helper(t):\n"
    "    return t.item()\n";

constexpr const char* kMain =
    "import torch\n"
    "from helpers import helper\n"
    "\n"
    "x = torch.ones(4, device=\"cuda\")\n"
    "g = torch.cuda.CUDAGraph()\n"
    "with torch.cuda.graph(g):\n"
    "    y = helper(x)\n";

std::vector<std::string> describe(const RunResult& result) {
  std::vector<std::string> lines;
  for (const Diagnostic& d : result.diagnostics) {
    lines.push_back(d.path() + ":" + std::to_string(d.range.start.line) + " " + d.rule_id + " " +
                    d.message);
  }
  return lines;
}

EngineOptions optionsWith(LoweringCache* cache) {
  EngineOptions options;
  options.jobs = 1;
  options.lowering_cache = cache;
  return options;
}

TEST(LoweringCacheTest, KeptModelsGiveTheFindingsOfAFreshLowering) {
  LoweringCache cache;
  std::vector<SourceFilePtr> sources = {std::make_shared<SourceFile>("helpers.py", kHelpers),
                                        std::make_shared<SourceFile>("main.py", kMain)};
  RunResult fresh = analyzeSources(sources, optionsWith(nullptr));
  ASSERT_FALSE(fresh.diagnostics.empty());

  RunResult first = analyzeSources(sources, optionsWith(&cache));
  EXPECT_EQ(cache.hits(), 0u);
  EXPECT_EQ(cache.size(), 2u);
  // The same texts in new SourceFile objects, as a language server's next run has them.
  std::vector<SourceFilePtr> again = {std::make_shared<SourceFile>("helpers.py", kHelpers),
                                      std::make_shared<SourceFile>("main.py", kMain)};
  RunResult second = analyzeSources(again, optionsWith(&cache));
  EXPECT_EQ(cache.hits(), 2u);
  EXPECT_EQ(describe(first), describe(fresh));
  EXPECT_EQ(describe(second), describe(fresh));
  // The findings point at the run's own texts, not the ones kept.
  for (const Diagnostic& d : second.diagnostics) {
    EXPECT_TRUE(d.file == again[0] || d.file == again[1]) << d.path();
  }
}

TEST(LoweringCacheTest, AChangedTextOrSettingLowersAgain) {
  LoweringCache cache;
  auto helpers = std::make_shared<SourceFile>("helpers.py", kHelpers);
  auto main = std::make_shared<SourceFile>("main.py", kMain);
  analyzeSources({helpers, main}, optionsWith(&cache));

  // The capture removed from main.py: helpers.py is kept, main.py lowered again.
  std::string edited = kMain;
  edited.replace(edited.find("helper(x)"), 9, "x + 1    ");
  auto main_edited = std::make_shared<SourceFile>("main.py", edited);
  RunResult result = analyzeSources({helpers, main_edited}, optionsWith(&cache));
  EXPECT_EQ(cache.hits(), 1u);
  EXPECT_TRUE(result.diagnostics.empty());

  // Another setting the frontends read: nothing kept applies.
  EngineOptions options = optionsWith(&cache);
  options.settings.capture_flags = {"runner.capturing"};
  analyzeSources({helpers, main_edited}, options);
  EXPECT_EQ(cache.hits(), 1u);
  EXPECT_NE(analysisSettingsKey(options.settings), analysisSettingsKey(AnalysisSettings{}));
}

TEST(LoweringCacheTest, ACxxUnitIsLoweredAgainWhenAHeaderItIncludedChanges) {
  testing::TempTree tree;
  tree.write("kernels.cuh", "// v1\n");
  FileModel unit;
  unit.language = Language::kCuda;
  unit.source = std::make_shared<SourceFile>(tree.path("launch.cu"), "#include \"kernels.cuh\"\n");
  unit.includes = {tree.path("kernels.cuh")};
  // A header written moments ago cannot be told apart from a later edit: not kept.
  LoweringCache cache;
  cache.keep(unit, "key");
  EXPECT_FALSE(cache.find(unit.source, "key"));

  // An older header is; rewriting it (new size and times) lowers the unit again.
  std::filesystem::last_write_time(
      tree.path("kernels.cuh"),
      std::filesystem::file_time_type::clock::now() - std::chrono::hours(1));
  cache.keep(unit, "key");
  EXPECT_TRUE(cache.find(unit.source, "key"));
  EXPECT_FALSE(cache.find(unit.source, "other key"));
  tree.write("kernels.cuh", "// version 2\n");
  EXPECT_FALSE(cache.find(unit.source, "key"));

  // A unit that read more headers than it lists is never kept.
  unit.includes_complete = false;
  LoweringCache incomplete;
  incomplete.keep(unit, "key");
  EXPECT_EQ(incomplete.size(), 0u);
}

TEST(EngineCancellationTest, ACancelledRunStopsWithRunCancelled) {
  std::atomic<bool> cancelled{true};
  EngineOptions options = optionsWith(nullptr);
  options.cancelled = &cancelled;
  std::vector<SourceFilePtr> sources = {std::make_shared<SourceFile>("main.py", kMain)};
  EXPECT_THROW(analyzeSources(sources, options), RunCancelled);
  cancelled = false;
  EXPECT_NO_THROW(analyzeSources(sources, options));
}

TEST(WorkspaceFilesTest, UnchangedFilesKeepTheirTextAndChangesAreSeen) {
  testing::TempTree tree;
  tree.write("helpers.py", kHelpers);
  tree.write("main.py", kMain);
  tree.write("notes.txt", "not analyzed\n");
  // Stamps an hour old, so that none is within the racy window.
  auto age = [&](const char* name) {
    std::filesystem::last_write_time(
        tree.path(name), std::filesystem::file_time_type::clock::now() - std::chrono::hours(1));
  };
  age("helpers.py");
  age("main.py");
  lsp::WorkspaceFiles files;
  std::vector<Notice> notices;
  std::vector<SourceFilePtr> first = files.read(tree.path(), {}, AnalysisSettings{}, {}, notices);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(files.reads(), 2u);

  std::vector<SourceFilePtr> second = files.read(tree.path(), {}, AnalysisSettings{}, {}, notices);
  EXPECT_EQ(second, first);  // the very same objects: nothing was read again
  EXPECT_EQ(files.reads(), 2u);

  // An open document stands for its file; a new file is found; a removed one is gone.
  auto open = std::make_shared<SourceFile>(tree.path("main.py"), "x = 1\n");
  tree.write("extra.py", "y = 2\n");
  std::filesystem::remove(tree.path("helpers.py"));
  std::vector<SourceFilePtr> third =
      files.read(tree.path(), {}, AnalysisSettings{}, {{tree.path("main.py"), open}}, notices);
  ASSERT_EQ(third.size(), 2u);
  EXPECT_EQ(third[0]->path(), tree.path("extra.py"));
  EXPECT_EQ(third[1], open);

  // A rewritten file is read again; `exclude` applies as in `graphsafe check`.
  tree.write("extra.py", "y = 3\n");
  std::vector<SourceFilePtr> fourth =
      files.read(tree.path(), {"main.py"}, AnalysisSettings{}, {}, notices);
  ASSERT_EQ(fourth.size(), 1u);
  EXPECT_EQ(fourth[0]->text(), "y = 3\n");
  EXPECT_TRUE(notices.empty());

  // A file that cannot be analyzed is a notice on every read, as in `graphsafe check`.
  tree.write("binary.py", std::string("\0\0\0", 3));
  std::vector<Notice> binary;
  files.read(tree.path(), {}, AnalysisSettings{}, {}, binary);
  files.read(tree.path(), {}, AnalysisSettings{}, {}, binary);
  ASSERT_EQ(binary.size(), 2u);
  EXPECT_EQ(binary[0].path, tree.path("binary.py"));
}

TEST(WorkspaceFilesTest, ARootOfSlashIsNotWalked) {
  lsp::WorkspaceFiles files;
  std::vector<Notice> notices;
  EXPECT_TRUE(files.read("/", {}, AnalysisSettings{}, {}, notices).empty());
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_NE(notices[0].message.find("only the open documents"), std::string::npos);
  EXPECT_EQ(files.reads(), 0u);
}

TEST(WorkspaceFilesTest, AWalkPastItsBoundStopsAndReturnsNothing) {
  testing::TempTree tree;
  for (int i = 0; i < 12; ++i) tree.write("pkg/m" + std::to_string(i) + ".py", "x = 1\n");
  std::vector<Notice> notices;
  bool stopped = false;
  EXPECT_TRUE(collectFiles({tree.path()}, {}, notices, false, 10, &stopped).empty());
  EXPECT_TRUE(stopped);
  EXPECT_EQ(collectFiles({tree.path()}, {}, notices, false, 12, &stopped).size(), 12u);
  EXPECT_FALSE(stopped);
  // Directories count too: a tree of empty directories is not walked whole either.
  testing::TempTree hollow;
  for (int i = 0; i < 100; ++i) hollow.mkdir("d" + std::to_string(i));
  EXPECT_TRUE(collectFiles({hollow.path()}, {}, notices, false, 10, &stopped).empty());
  EXPECT_TRUE(stopped);
}

}  // namespace
}  // namespace graphsafe
