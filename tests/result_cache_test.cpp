// The result cache: a warm run prints exactly what a cold one prints, in every format; a change
// in a file the analysis read (a callee in another file) reruns it; a changed file nothing
// reached keeps the entry; corrupt, truncated and foreign entries are ignored; the directory
// stays under its bound.
#include "analyzer/engine/result_cache.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/cli/check_command.h"
#include "analyzer/engine/cache_files.h"
#include "analyzer/engine/cache_seal.h"
#include "analyzer/engine/cuda_frontend_loader.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/file_walker.h"
#include "analyzer/engine/unit_cache.h"
#include "analyzer/io/atomic_write.h"
#include "analyzer/output/output_format.h"
#include "tests/temp_tree.h"

namespace graphsafe {
namespace {

namespace fs = std::filesystem;
using testing::TempTree;

constexpr const char* kRegion = R"(import torch
from helpers import scale

def capture():
    x = torch.ones(4, device="cuda")
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y = scale(x)
        if x.sum() > 0:  # GS101
            y = y * 2
    return g, x, y
)";
constexpr const char* kHelperWithSync = "def scale(v):\n    return v * float(v)\n";
constexpr const char* kHelperClean = "def scale(v):\n    return v * 2\n";

class ResultCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tree_.write("main.py", kRegion);
    tree_.write("helpers.py", kHelperWithSync);
    tree_.write("unrelated.py", "def add(a, b):\n    return a + b\n");
  }

  EngineOptions options() const {
    EngineOptions engine;
    engine.paths = {tree_.root().string()};
    engine.jobs = 1;
    engine.exclude = {"cache"};
    engine.cache_dir = cache_dir();
    return engine;
  }
  std::string cache_dir() const { return tree_.path("cache"); }

  // Whether the entry for this tree would be used as it is now (`regions`: the entry of a run
  // that reports regions, as the JSON format does).
  bool entryValid(bool regions = false) const {
    EngineOptions engine = options();
    engine.report_regions = regions;
    ResultCache cache(engine.cache_dir, runCacheKey(engine));
    std::vector<Notice> ignored;
    auto never = [](const SourceFile&) { return false; };
    std::vector<std::string> paths = collectFiles(engine.paths, engine.exclude, ignored);
    return cache.load(paths, engine.settings, never).has_value();
  }

  std::string entryPath(bool regions = false) const {
    EngineOptions engine = options();
    engine.report_regions = regions;
    return ResultCache(engine.cache_dir, runCacheKey(engine)).entryPath();
  }

  // One `graphsafe check` in a format: stdout, then stderr.
  std::string checkOutput(const std::string& format, bool use_cache) const {
    CheckCommandOptions command;
    command.paths = {tree_.root().string()};
    command.exclude = {"cache"};
    command.format = format;
    command.jobs = 1;
    command.cache_dir = cache_dir();
    command.no_cache = !use_cache;
    std::ostringstream out;
    std::ostringstream err;
    int code = runCheckCommand(command, out, err, false, false);
    return std::to_string(code) + "\n" + out.str() + "\n--stderr--\n" + err.str();
  }

  static std::vector<std::string> findings(const RunResult& result) {
    std::vector<std::string> out;
    for (const Diagnostic& d : result.diagnostics) {
      out.push_back(d.rule_id + " " + fs::path(d.path()).filename().string() + ":" +
                    std::to_string(d.range.start.line + 1));
    }
    return out;
  }

  TempTree tree_;
};

TEST_F(ResultCacheTest, AWarmRunPrintsWhatAColdRunPrintsInEveryFormat) {
  for (const char* format : {"text", "concise", "json", "sarif", "github", "gitlab", "junit",
                             "lintrunner", "json-lines"}) {
    SCOPED_TRACE(format);
    fs::remove_all(cache_dir());
    std::string uncached = checkOutput(format, false);
    EXPECT_FALSE(fs::exists(cache_dir()));
    std::string cold = checkOutput(format, true);
    const bool regions = std::string_view(format) == "json";
    ASSERT_TRUE(fs::exists(entryPath(regions)));
    ASSERT_TRUE(entryValid(regions));
    std::string warm = checkOutput(format, true);
    EXPECT_EQ(cold, uncached);
    EXPECT_EQ(warm, cold);
    EXPECT_NE(cold.find("GS401"), std::string::npos) << cold;
  }
}

TEST_F(ResultCacheTest, EditingACalleeInAnotherFileChangesTheCallersFindings) {
  RunResult cold = runAnalysis(options());
  EXPECT_EQ(findings(cold), (std::vector<std::string>{"GS401 helpers.py:2", "GS101 main.py:9"}));
  // The same size, written within the same second: only the content tells them apart.
  tree_.write("helpers.py", "def scale(v):\n    return v * (v + 00)\n");
  EXPECT_FALSE(entryValid());
  RunResult edited = runAnalysis(options());
  EXPECT_EQ(findings(edited), (std::vector<std::string>{"GS101 main.py:9"}));
  EXPECT_EQ(findings(runAnalysis(options())), findings(edited));

  tree_.write("helpers.py", kHelperWithSync);
  EXPECT_EQ(findings(runAnalysis(options())), findings(cold));
}

// A C++ run is cached with the headers its units included and the compile database its flags
// came from, though neither is among the run's files: editing either reruns it.
TEST_F(ResultCacheTest, ACxxRunIsKeptUntilAHeaderOrTheCompileDatabaseChanges) {
  if (std::string error; loadCudaFrontend(error) == nullptr) GTEST_SKIP() << error;
  TempTree tree;
  tree.write("include/config.h", "#define SYNC_IN_CAPTURE 1\n");
  tree.write("build/compile_commands.json", "[]");
  tree.write("csrc/run.cu", R"(#include <cuda_runtime.h>
#include "../include/config.h"
void run(cudaStream_t s, cudaGraph_t* graph) {
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
#if SYNC_IN_CAPTURE
  cudaDeviceSynchronize();
#endif
  cudaStreamEndCapture(s, graph);
}
)");
  EngineOptions engine;
  engine.paths = {tree.path("csrc")};
  engine.jobs = 1;
  engine.cache_dir = tree.path("cache");
  engine.settings.cuda_path = "none";
  engine.settings.compile_commands_dir = tree.path("build");
  auto valid = [&] {
    ResultCache cache(engine.cache_dir, runCacheKey(engine));
    std::vector<Notice> ignored;
    auto never = [](const SourceFile&) { return false; };
    return cache.load(collectFiles(engine.paths, {}, ignored), engine.settings, never)
        .has_value();
  };
  EXPECT_EQ(findings(runAnalysis(engine)), std::vector<std::string>{"GS401 run.cu:6"});
  EXPECT_TRUE(valid());
  EXPECT_EQ(findings(runAnalysis(engine)), std::vector<std::string>{"GS401 run.cu:6"});

  tree.write("include/config.h", "#define SYNC_IN_CAPTURE 0\n");  // the same size
  EXPECT_FALSE(valid());
  EXPECT_TRUE(findings(runAnalysis(engine)).empty());
  EXPECT_TRUE(valid());

  tree.write("build/compile_commands.json", "[ ]");
  EXPECT_FALSE(valid());
  EXPECT_TRUE(findings(runAnalysis(engine)).empty());
  EXPECT_TRUE(valid());
}

// C++ units keep their models in unit entries: a run the run entry cannot answer (here: its
// entry is gone) takes each unit whose text, headers and settings did not change from its
// entry, and a changed header invalidates exactly the units that included it.
TEST_F(ResultCacheTest, EachCxxUnitIsKeptUntilItsOwnTextOrHeadersChange) {
  if (std::string error; loadCudaFrontend(error) == nullptr) GTEST_SKIP() << error;
  TempTree tree;
  const char* unit = R"(#include <cuda_runtime.h>
#include "NAME.h"
void run(cudaStream_t s, cudaGraph_t* graph) {
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
#if SYNC_IN_CAPTURE
  cudaDeviceSynchronize();
#endif
  cudaStreamEndCapture(s, graph);
}
)";
  auto unitText = [&](const std::string& name) {
    std::string text = unit;
    text.replace(text.find("NAME"), 4, name);
    return text;
  };
  tree.write("a.h", "#define SYNC_IN_CAPTURE 1\n");
  tree.write("b.h", "#define SYNC_IN_CAPTURE 1\n");
  tree.write("a.cu", unitText("a"));
  tree.write("b.cu", unitText("b"));
  // Stamps an hour old: none is within the racy window, so a stamp proves a file unchanged.
  for (const char* name : {"a.h", "b.h", "a.cu", "b.cu"}) {
    fs::last_write_time(tree.path(name), fs::file_time_type::clock::now() - std::chrono::hours(1));
  }
  EngineOptions engine;
  engine.paths = {tree.path()};
  engine.jobs = 1;
  engine.cache_dir = tree.path("cache");
  engine.settings.cuda_path = "none";
  auto kept = [&](const char* name) {
    UnitCache units(engine.cache_dir, analysisSettingsKey(engine.settings));
    return units.load(std::make_shared<SourceFile>(tree.path(name), tree.read(name))).has_value();
  };
  auto forgetRuns = [&] {
    for (const auto& entry : fs::directory_iterator(tree.path("cache"))) {
      if (entry.path().filename().string().starts_with("run-")) fs::remove(entry.path());
    }
  };
  const std::vector<std::string> both = {"GS401 a.cu:6", "GS401 b.cu:6"};
  EXPECT_EQ(findings(runAnalysis(engine)), both);
  EXPECT_TRUE(kept("a.cu"));
  EXPECT_TRUE(kept("b.cu"));

  // Other settings the frontends read: no entry applies.
  AnalysisSettings other = engine.settings;
  other.extra_args = {"-DOTHER"};
  EXPECT_FALSE(UnitCache(engine.cache_dir, analysisSettingsKey(other))
                   .load(std::make_shared<SourceFile>(tree.path("a.cu"), tree.read("a.cu"))));

  // The run entry gone, the units' entries give the same findings.
  forgetRuns();
  EXPECT_EQ(findings(runAnalysis(engine)), both);

  // b.h changes (the same size): b.cu's entry no longer holds, a.cu's does.
  tree.write("b.h", "#define SYNC_IN_CAPTURE 0\n");
  EXPECT_TRUE(kept("a.cu"));
  EXPECT_FALSE(kept("b.cu"));
  EXPECT_EQ(findings(runAnalysis(engine)), std::vector<std::string>{"GS401 a.cu:6"});
  EXPECT_TRUE(kept("b.cu"));

  // A corrupt unit entry is ignored: the unit is parsed again and its entry rewritten.
  for (const auto& entry : fs::directory_iterator(tree.path("cache"))) {
    std::string name = entry.path().filename().string();
    if (name.starts_with("unit-")) {
      std::string text = tree.read("cache/" + name);
      text[text.size() / 2] ^= 0x20;
      tree.write("cache/" + name, text);
    }
  }
  EXPECT_FALSE(kept("a.cu"));
  forgetRuns();
  EXPECT_EQ(findings(runAnalysis(engine)), std::vector<std::string>{"GS401 a.cu:6"});
  EXPECT_TRUE(kept("a.cu"));
  EXPECT_TRUE(kept("b.cu"));

  // An edited unit text: not the entry's.
  tree.write("a.cu", unitText("a") + "// edited\n");
  EXPECT_FALSE(kept("a.cu"));
}

TEST_F(ResultCacheTest, AFileNothingReachedMayChangeWhileItStillCannotMatter) {
  RunResult cold = runAnalysis(options());
  tree_.write("unrelated.py", "def add(a, b):\n    return a - b\n");
  RunResult warm = runAnalysis(options());
  EXPECT_EQ(findings(warm), findings(cold));
  // Once it can matter (it captures now), it is analyzed, and its finding is reported.
  tree_.write("unrelated.py", R"(import torch

def capture(x):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        print(x.sum().item())
)");
  RunResult now = runAnalysis(options());
  EngineOptions uncached = options();
  uncached.cache_dir.clear();
  EXPECT_EQ(findings(now), findings(runAnalysis(uncached)));
  EXPECT_GT(findings(now).size(), findings(cold).size());
}

TEST_F(ResultCacheTest, ANewOrRemovedFileReruns) {
  RunResult cold = runAnalysis(options());
  tree_.write("helpers2.py", "def other(v):\n    return v\n");
  EXPECT_FALSE(entryValid());
  EXPECT_EQ(runAnalysis(options()).files_analyzed, cold.files_analyzed + 1);
  fs::remove(tree_.path("helpers2.py"));
  EXPECT_EQ(runAnalysis(options()).files_analyzed, cold.files_analyzed);
}

TEST_F(ResultCacheTest, ADifferentConfigurationIsAnotherEntry) {
  RunResult all = runAnalysis(options());
  EngineOptions only = options();
  only.selection.select = {"GS101"};
  EXPECT_EQ(findings(runAnalysis(only)), (std::vector<std::string>{"GS101 main.py:9"}));
  EXPECT_EQ(findings(runAnalysis(options())), findings(all));
  // Reporting unused suppressions is another entry too, and is cached like any run.
  tree_.write("main.py", std::string(kRegion) + "z = 1  # graphsafe: ignore[GS101]\n");
  EngineOptions unused = options();
  unused.report_unused_suppressions = true;
  const auto with_unused = findings(runAnalysis(unused));
  EXPECT_EQ(with_unused.size(), findings(all).size() + 1);
  EXPECT_EQ(findings(runAnalysis(options())).size(), findings(all).size());
  EXPECT_EQ(ResultCache(unused.cache_dir, runCacheKey(unused)).entryPath() == entryPath(), false);
  EXPECT_EQ(findings(runAnalysis(unused)), with_unused);
}

TEST_F(ResultCacheTest, CorruptTruncatedAndForeignEntriesAreIgnored) {
  RunResult cold = runAnalysis(options());
  std::string entry = entryPath();
  std::string good;
  {
    std::ifstream in(entry, std::ios::binary);
    good.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  ASSERT_FALSE(good.empty());
  std::string flipped = good;
  flipped[flipped.size() / 2] ^= 0x20;  // a flipped bit inside the payload
  std::string first_line = good.substr(0, good.find('\n'));
  // Well-formed, with a correct checksum, but not an entry of this run.
  auto sealed = [&](const std::string& payload) {
    char checksum[17];
    std::snprintf(checksum, sizeof checksum, "%016llx",
                  static_cast<unsigned long long>(contentHash(payload)));
    return first_line + "\n" + checksum + "\n" + payload;
  };
  std::vector<std::string> bad = {
      sealed("{\"key\": 1}"),
      sealed("null"),
      sealed("[]"),
      sealed(R"({"key": "another run", "written_ns": 0, "files": [], "result": {}})"),
      "",
      "\x7f\x45LF\x02\x01 garbage",
      good.substr(0, good.size() / 2),
      flipped,
      "graphsafe-result-cache 99\n0\n{}",
      first_line + "\n0123456789abcdef\n{\"key\": 1}",
      std::string(4096, '\0'),
  };
  for (std::size_t i = 0; i < bad.size(); ++i) {
    SCOPED_TRACE(i);
    {
      std::ofstream out(entry, std::ios::binary | std::ios::trunc);
      out << bad[i];
    }
    EXPECT_FALSE(entryValid());
    RunResult again = runAnalysis(options());
    EXPECT_EQ(findings(again), findings(cold));
    EXPECT_TRUE(entryValid());  // rewritten by the run
  }
  // A directory where the entry should be: no crash, no cache, the same result.
  fs::remove(entry);
  fs::create_directories(entry);
  EXPECT_EQ(findings(runAnalysis(options())), findings(cold));
}

TEST_F(ResultCacheTest, AnUnwritableCacheDirectoryIsNoError) {
  tree_.write("cache", "a file, not a directory");
  RunResult result = runAnalysis(options());
  EXPECT_EQ(findings(result).size(), 2u);
  EXPECT_TRUE(result.notices.empty());
}

TEST_F(ResultCacheTest, TheDirectoryIsBoundedAndIgnoredByGit) {
  runAnalysis(options());
  EXPECT_TRUE(fs::exists(cache_dir() + "/.gitignore"));
  EXPECT_TRUE(fs::exists(cache_dir() + "/CACHEDIR.TAG"));
  fs::remove(entryPath());
  // Beyond the bound, the least recently used entries go first.
  auto name = [&](int i) { return cache_dir() + "/run-old" + std::to_string(i) + ".entry"; };
  for (int i = 0; i < 8; ++i) {
    std::ofstream(name(i)) << std::string(1000, 'x');
    fs::last_write_time(name(i), fs::file_time_type::clock::now() - std::chrono::hours(1 + i));
  }
  pruneResultCache(cache_dir(), 3500);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(fs::exists(name(i)), i < 3) << i;
  EXPECT_TRUE(fs::exists(cache_dir() + "/.gitignore"));
}

TEST_F(ResultCacheTest, ALinkPlantedInTheCacheIsReplacedNotWrittenThrough) {
  runAnalysis(options());
  tree_.write("victim.txt", "precious");
  fs::remove(entryPath());
  fs::create_symlink(tree_.path("victim.txt"), entryPath());
  tree_.write("helpers.py", kHelperClean);
  runAnalysis(options());
  EXPECT_EQ(tree_.read("victim.txt"), "precious");
  EXPECT_FALSE(fs::is_symlink(entryPath()));
  EXPECT_TRUE(entryValid());
  // Pruning removes a planted link, never its target.
  fs::create_symlink(tree_.path("victim.txt"), cache_dir() + "/run-planted.entry");
  pruneResultCache(cache_dir(), 1);
  EXPECT_FALSE(fs::exists(fs::symlink_status(cache_dir() + "/run-planted.entry")));
  EXPECT_EQ(tree_.read("victim.txt"), "precious");
}

TEST_F(ResultCacheTest, ATemporaryLeftByAKilledRunIsRemoved) {
  runAnalysis(options());
  // A pid above the kernel's limit (pid_max is at most 2^22) names no process.
  const std::string stale = cache_dir() + "/.run-x.entry.graphsafe-99999999-0-1.tmp";
  const std::string live =
      cache_dir() + "/.run-y.entry.graphsafe-" + std::to_string(::getpid()) + "-0-1.tmp";
  std::ofstream(stale) << std::string(1000, 'x');
  std::ofstream(live) << std::string(1000, 'x');
  pruneResultCache(cache_dir(), 1u << 20);
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live));
}

// A file name is bytes: one that is not UTF-8 (Latin-1 `caf\xe9.py`, a directory `d\xff` given
// as the path) is stored exactly, so the entry is used again and names the same file.
TEST_F(ResultCacheTest, NamesThatAreNotUtf8RoundTripAndHit) {
  const std::string latin1 = "caf\xe9.py";
  tree_.write(latin1, "import torch\nfrom helpers import scale\n\ndef run(x):\n"
                      "    with torch.cuda.graph(torch.cuda.CUDAGraph()):\n"
                      "        y = scale(x)\n        z = x.item()\n");
  RunResult cold = runAnalysis(options());
  std::vector<std::string> expected = findings(cold);
  ASSERT_NE(std::find(expected.begin(), expected.end(), "GS401 " + latin1 + ":7"), expected.end())
      << ::testing::PrintToString(expected);
  EXPECT_TRUE(entryValid());
  std::string entry = tree_.read(fs::relative(entryPath(), tree_.root()).string());
  EXPECT_EQ(entry.find("\xef\xbf\xbd"), std::string::npos);  // no U+FFFD: nothing replaced
  RunResult warm = runAnalysis(options());
  EXPECT_EQ(findings(warm), expected);
  bool named = false;
  for (const Diagnostic& d : warm.diagnostics) {
    named = named || d.path() == (tree_.root() / latin1).string();
  }
  EXPECT_TRUE(named);

  // A path given that is not UTF-8 enters the key, which must read back as it was written.
  const std::string directory = "d\xff";
  tree_.write(directory + "/a.py", "def add(a, b):\n    return a + b\n");
  EngineOptions engine = options();
  engine.paths = {(tree_.root() / directory).string()};
  runAnalysis(engine);
  ResultCache cache(engine.cache_dir, runCacheKey(engine));
  std::vector<Notice> ignored;
  std::vector<std::string> paths = collectFiles(engine.paths, engine.exclude, ignored);
  EXPECT_TRUE(cache.load(paths, engine.settings, [](const SourceFile&) { return false; }));
}

// The entry file's three parts: the magic line, the seal line, the payload.
struct EntryParts {
  std::string magic;
  std::string seal;
  std::string payload;
};

EntryParts splitEntry(const std::string& text) {
  const std::size_t first = text.find('\n');
  const std::size_t second = text.find('\n', first + 1);
  return {text.substr(0, first), text.substr(first + 1, second - first - 1),
          text.substr(second + 1)};
}

void writeFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

TEST_F(ResultCacheTest, AnEntryACheckoutCarriesCannotHideAFinding) {
  // A pull request commits a .graphsafe_cache/ whose entry says "nothing found" for its files,
  // with the checksum anyone can compute: without this user's key it proves nothing.
  RunResult cold = runAnalysis(options());
  ASSERT_FALSE(cold.diagnostics.empty());
  EntryParts entry = splitEntry(tree_.read(fs::relative(entryPath(), tree_.root()).string()));
  const std::string empty_result = R"("diagnostics":[])";
  std::string forged = entry.payload;
  const std::size_t begin = forged.find(R"("diagnostics":[)");
  const std::size_t end = forged.find(R"(],"files_analyzed")", begin);
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  forged.replace(begin, end + 1 - begin, empty_result);
  for (const std::string& seal :
       {hexHash(contentHash(forged)), entry.seal, std::string(64, '0'), std::string()}) {
    SCOPED_TRACE(seal);
    writeFile(entryPath(), entry.magic + "\n" + seal + "\n" + forged);
    EXPECT_FALSE(entryValid());
    EXPECT_EQ(findings(runAnalysis(options())), findings(cold));
  }
  // The same forgery sealed with the key is taken: the seal is what decides.
  writeFile(entryPath(), entry.magic + "\n" + machineCacheSeal()->seal(forged) + "\n" + forged);
  EXPECT_TRUE(entryValid());
  EXPECT_TRUE(runAnalysis(options()).diagnostics.empty());
}

TEST_F(ResultCacheTest, ADeeplyNestedEntryIsAMissNotACrash) {
  // Sealed (as a corrupt entry of one's own would be), with a million nested arrays under a key
  // the schema does not have, and a stamp that makes the load rewrite the entry: the recursive
  // writer used to run out of stack there, on every later run.
  runAnalysis(options());
  EntryParts entry = splitEntry(tree_.read(fs::relative(entryPath(), tree_.root()).string()));
  const std::size_t depth = 1'000'000;
  std::string deep = entry.payload;
  deep.insert(1, "\"x\":" + std::string(depth, '[') + std::string(depth, ']') + ",");
  writeFile(entryPath(), entry.magic + "\n" + machineCacheSeal()->seal(deep) + "\n" + deep);
  fs::last_write_time(tree_.root() / "main.py", fs::file_time_type::clock::now());
  EXPECT_FALSE(entryValid());
  EXPECT_FALSE(runAnalysis(options()).diagnostics.empty());
  // Deep where the schema has a list: the same.
  std::string nested = entry.payload;
  const std::size_t files = nested.find("\"files\":[");
  ASSERT_NE(files, std::string::npos);
  nested.insert(files + 9, std::string(depth, '[') + std::string(depth, ']') + ",");
  writeFile(entryPath(), entry.magic + "\n" + machineCacheSeal()->seal(nested) + "\n" + nested);
  EXPECT_FALSE(entryValid());
  EXPECT_FALSE(parseEntryJson(nested).has_value());
}

TEST_F(ResultCacheTest, AnEntryThatIsALinkIsNotRead) {
  runAnalysis(options());
  const std::string entry = entryPath();
  fs::rename(entry, tree_.path("elsewhere.entry"));
  fs::create_symlink(tree_.path("elsewhere.entry"), entry);
  EXPECT_FALSE(entryValid());
}

TEST_F(ResultCacheTest, AUnitSpelledRelativelyIsAnotherUnitInAnotherDirectory) {
  // The same relative path in two checkouts that share a cache directory names two files.
  TempTree first;
  TempTree second;
  const std::string text = "void run() {}\n";
  first.write("k.cu", text);
  second.write("k.cu", text);
  FileModel model;
  model.language = Language::kCuda;
  model.includes_complete = true;
  const std::string cache = tree_.path("shared-cache");
  {
    testing::ScopedCurrentDirectory in(first.root());
    model.source = std::make_shared<SourceFile>("k.cu", text);
    UnitCache units(cache, "settings\n");
    units.store(model);
    EXPECT_TRUE(units.load(model.source).has_value());
  }
  {
    testing::ScopedCurrentDirectory in(second.root());
    UnitCache units(cache, "settings\n");
    EXPECT_FALSE(units.load(std::make_shared<SourceFile>("k.cu", text)).has_value());
  }
  // An absolute path means one file wherever the run is.
  model.source = std::make_shared<SourceFile>(first.path("k.cu"), text);
  {
    testing::ScopedCurrentDirectory in(first.root());
    UnitCache(cache, "settings\n").store(model);
  }
  testing::ScopedCurrentDirectory in(second.root());
  EXPECT_TRUE(UnitCache(cache, "settings\n").load(model.source).has_value());
}

TEST(CacheSealTest, AKeyIsMadeOnceAndKeptPrivate) {
  TempTree home;
  const std::string file = home.path("graphsafe/cache-key");
  std::string error;
  std::optional<CacheSeal> made = CacheSeal::fromKeyFile(file, error);
  ASSERT_TRUE(made) << error;
  struct stat info {};
  ASSERT_EQ(::stat(file.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  std::optional<CacheSeal> again = CacheSeal::fromKeyFile(file, error);
  ASSERT_TRUE(again) << error;
  EXPECT_EQ(made->seal("payload"), again->seal("payload"));
  EXPECT_TRUE(again->verify("payload", made->seal("payload")));
  EXPECT_FALSE(again->verify("payload!", made->seal("payload")));
  EXPECT_EQ(made->seal("payload").size(), 64u);
  // A file that holds no key (cut short, edited) is replaced by a new key.
  home.write("graphsafe/cache-key", "not a key\n");
  std::optional<CacheSeal> fresh = CacheSeal::fromKeyFile(file, error);
  ASSERT_TRUE(fresh) << error;
  EXPECT_FALSE(fresh->verify("payload", made->seal("payload")));
}

}  // namespace
}  // namespace graphsafe
