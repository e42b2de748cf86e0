// Every bound that keeps one pathological input from hanging a run or taking the machine's
// memory: the parse's time and memory budgets, the region walk's call depth and visit budget
// (deep call chains, cycles, exponentially many paths), and the nesting limits of the parsers
// graphsafe hands user files to.
#include <gtest/gtest.h>


#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <new>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "analyzer/config/config.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/frontend.h"
#include "analyzer/engine/parallel.h"
#include "analyzer/program/program_model.h"
#include "analyzer/engine/region_walker.h"
#include "tests/temp_tree.h"

namespace graphsafe {
namespace {

using Clock = std::chrono::steady_clock;

std::string repeat(std::string_view part, std::size_t times) {
  std::string text;
  text.reserve(part.size() * times);
  for (std::size_t i = 0; i < times; ++i) text += part;
  return text;
}

SourceFilePtr source(const std::string& path, std::string text) {
  return std::make_shared<const SourceFile>(path, std::move(text));
}

RunResult analyze(const std::vector<SourceFilePtr>& sources,
                  const AnalysisSettings& settings = {}) {
  EngineOptions options;
  options.jobs = 1;
  options.settings = settings;
  return analyzeSources(sources, options);
}

// 1-based lines of the findings of `rule`.
std::vector<std::uint32_t> findingLines(const RunResult& result, std::string_view rule) {
  std::vector<std::uint32_t> lines;
  for (const Diagnostic& diagnostic : result.diagnostics) {
    if (diagnostic.rule_id == rule) lines.push_back(diagnostic.range.start.line + 1);
  }
  return lines;
}

std::vector<std::string> noticesFor(const RunResult& result, const std::string& path) {
  std::vector<std::string> messages;
  for (const Notice& notice : result.notices) {
    if (notice.path == path) messages.push_back(notice.message);
  }
  return messages;
}

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

constexpr const char* kCapture =
    "x = torch.ones(4, device=\"cuda\")\n"
    "g = torch.cuda.CUDAGraph()\n"
    "with torch.cuda.graph(g):\n";

// ---- the parse's budgets --------------------------------------------------------------------

TEST(ParseBudgetTest, ATimedOutParseSkipsTheFileWithANotice) {
  AnalysisSettings settings;
  settings.parse_timeout_ms = 1;
  std::string slow = "import torch\nvalues = [" + repeat("a, ", 1'500'000) + "]\n";
  RunResult result = analyze({source("slow.py", slow)}, settings);
  std::vector<std::string> notices = noticesFor(result, "slow.py");
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_EQ(notices[0], "skipped: parsing took longer than 1 ms");
}

TEST(ParseBudgetTest, ASyntaxTreeOverItsMemoryBudgetSkipsTheFile) {
  AnalysisSettings settings;
  settings.max_parse_memory_bytes = 16u << 20;
  // 1 MB of dense text needs about 340 MB of syntax tree.
  std::string dense = "import torch\nvalues = [" + repeat("a,", 500'000) + "]\n";
  std::string bug = std::string("import torch\n") + kCapture + "    torch.cuda.synchronize()\n";
  RunResult result = analyze({source("dense.py", dense), source("bug.py", bug)}, settings);
  std::vector<std::string> notices = noticesFor(result, "dense.py");
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_EQ(notices[0],
            "skipped: its syntax tree would take more than 16 MB (a generated or data file?)");
  // The same worker goes on to the next file with a parser in a clean state.
  EXPECT_EQ(findingLines(result, "GS401"), std::vector<std::uint32_t>{5});
  EXPECT_TRUE(noticesFor(result, "bug.py").empty());
}

TEST(ParseBudgetTest, OrdinaryCodeStaysFarBelowTheDefaultBudgets) {
  // 2 MB of ordinary code: about 20 bytes of tree per byte, 40 MB against 512 MB.
  std::string body;
  for (int i = 0; i < 20'000; ++i) {
    body += "def f" + std::to_string(i) + "(x, y=2):\n    return torch.relu(x) + y * x.sum()\n\n";
  }
  Clock::time_point start = Clock::now();
  RunResult result = analyze({source("big.py", "import torch\n" + body)});
  EXPECT_TRUE(result.notices.empty()) << result.notices.front().message;
  EXPECT_LT(secondsSince(start), 60.0);
}

// ---- the region walk ------------------------------------------------------------------------

// Builds the program of `sources` with the Python frontend, as the engine does.
ProgramModel program(const std::vector<SourceFilePtr>& sources) {
  auto frontend = makePythonFrontend();
  std::vector<FileModel> models;
  for (const SourceFilePtr& file : sources) models.push_back(frontend->analyze(file, {}));
  return ProgramModel(std::move(models));
}

struct WalkStats {
  std::set<const FunctionModel*> functions;
  std::size_t events = 0;
  std::size_t longest_path = 0;
};

WalkStats walkAll(const ProgramModel& model) {
  WalkStats stats;
  RegionWalker walker(model);
  for (const FileModel& file : model.files()) {
    for (std::size_t r = 0; r < file.regions.size(); ++r) {
      walker.walk(file, r, [&](const RegionContext& context, const Event&) {
        stats.functions.insert(context.function);
        ++stats.events;
        stats.longest_path = std::max(stats.longest_path, context.path.size());
      });
    }
  }
  return stats;
}

// f0 calls f1 calls ... f{count-1}; `sync_at` functions synchronize first.
std::string callChain(std::size_t count, const std::set<std::size_t>& sync_at) {
  std::string text = "import torch\n";
  for (std::size_t i = 0; i < count; ++i) {
    text += "def f" + std::to_string(i) + "(x):\n";
    if (sync_at.count(i) != 0) text += "    torch.cuda.synchronize()\n";
    text += i + 1 < count ? "    return f" + std::to_string(i + 1) + "(x)\n" : "    return x\n";
  }
  return text + kCapture + "    y = f0(x)\n";
}

// The 1-based line of `needle`'s `occurrence`-th appearance.
std::uint32_t lineOf(const std::string& text, std::string_view needle, std::size_t occurrence) {
  std::size_t at = 0;
  for (std::size_t i = 0; i <= occurrence; ++i) {
    at = text.find(needle, i == 0 ? 0 : at + 1);
    if (at == std::string::npos) return 0;
  }
  return static_cast<std::uint32_t>(std::count(text.begin(), text.begin() + at, '\n') + 1);
}

TEST(RegionWalkBoundsTest, TenThousandDeepCallChain) {
  std::string text = callChain(10'000, {10, 9'999});
  Clock::time_point start = Clock::now();
  RunResult result = analyze({source("chain.py", text)});
  EXPECT_LT(secondsSince(start), 60.0);
  // Within the depth bound the sync is found, through its call path; past it, the walk stops.
  EXPECT_EQ(findingLines(result, "GS401"),
            std::vector<std::uint32_t>{lineOf(text, "torch.cuda.synchronize()", 0)});

  WalkStats stats = walkAll(program({source("chain.py", text)}));
  EXPECT_EQ(stats.longest_path, RegionWalker::kMaxCallDepth);
  EXPECT_EQ(stats.functions.size(), RegionWalker::kMaxCallDepth + 1);  // the module, f0..f23
}

TEST(RegionWalkBoundsTest, CyclesEndAndReportOnce) {
  std::string text = std::string("import torch\n") +
                     "def ping(x):\n"
                     "    torch.cuda.synchronize()\n"
                     "    return pong(x)\n"
                     "def pong(x):\n"
                     "    return ping(x)\n"
                     "def itself(x):\n"
                     "    x.item()\n"
                     "    return itself(itself(x))\n" +
                     kCapture + "    ping(x)\n    pong(x)\n    itself(x)\n";
  RunResult result = analyze({source("cycle.py", text)});
  EXPECT_EQ(findingLines(result, "GS401"), (std::vector<std::uint32_t>{3, 8}));

  WalkStats stats = walkAll(program({source("cycle.py", text)}));
  EXPECT_EQ(stats.functions.size(), 4u);  // the module, ping, pong, itself: each once
}

TEST(RegionWalkBoundsTest, CycleAcrossFiles) {
  std::string a = std::string("import torch\nfrom b import back\n") +
                  "def forth(x):\n"
                  "    torch.cuda.synchronize()\n"
                  "    return back(x)\n" +
                  kCapture + "    forth(x)\n";
  std::string b =
      "from a import forth\n"
      "def back(x):\n"
      "    return forth(x)\n";
  RunResult result = analyze({source("a.py", a), source("b.py", b)});
  EXPECT_EQ(findingLines(result, "GS401"), std::vector<std::uint32_t>{4});
}

TEST(RegionWalkBoundsTest, ExponentiallyManyPathsAreWalkedOncePerFunction) {
  // 22 layers of two functions, each calling both of the next layer: 4 million call paths,
  // all within the depth bound.
  const int layers = 22;
  std::string text = "import torch\n";
  for (int layer = 0; layer < layers; ++layer) {
    for (char side : {'a', 'b'}) {
      text += "def l" + std::to_string(layer) + side + "(x):\n";
      if (layer == layers - 1) {
        text += "    torch.cuda.synchronize()\n    return x\n";
      } else {
        std::string next = "l" + std::to_string(layer + 1);
        text += "    " + next + "a(x)\n    return " + next + "b(x)\n";
      }
    }
  }
  text += std::string(kCapture) + "    l0a(x)\n";
  Clock::time_point start = Clock::now();
  RunResult result = analyze({source("lattice.py", text)});
  EXPECT_LT(secondsSince(start), 30.0);
  // Both bottom functions synchronize: two lines, each reported once.
  EXPECT_EQ(findingLines(result, "GS401").size(), 2u);

  WalkStats stats = walkAll(program({source("lattice.py", text)}));
  EXPECT_EQ(stats.functions.size(), 2u * layers);  // the module, l0a, then both of each layer
}

TEST(RegionWalkBoundsTest, VisitBudgetCapsAWideRegion) {
  // One region reaching 6,250 distinct functions (250 callers of 24 leaves each).
  std::string text = "import torch\n";
  for (int leaf = 0; leaf < 6'000; ++leaf) {
    text += "def leaf" + std::to_string(leaf) + "(x):\n    return torch.relu(x)\n";
  }
  for (int caller = 0; caller < 250; ++caller) {
    text += "def caller" + std::to_string(caller) + "(x):\n";
    for (int k = 0; k < 24; ++k) text += "    leaf" + std::to_string(caller * 24 + k) + "(x)\n";
  }
  text += kCapture;
  for (int caller = 0; caller < 250; ++caller) {
    text += "    caller" + std::to_string(caller) + "(x)\n";
  }
  Clock::time_point start = Clock::now();
  WalkStats stats = walkAll(program({source("wide.py", text)}));
  EXPECT_LT(secondsSince(start), 30.0);
  EXPECT_LE(stats.functions.size(), RegionWalker::kMaxFunctionVisits);
  EXPECT_GT(stats.functions.size(), RegionWalker::kMaxFunctionVisits / 2);
}

TEST(RegionWalkBoundsTest, ARegionPastItsBudgetIsIncompleteAndSaysSo) {
  // The walk's budget spent, the calls past it go unchecked: the run says which region, and is
  // no pass, instead of reporting "0 calls not followed".
  std::string text = "import torch\n";
  for (int leaf = 0; leaf < 6'000; ++leaf) {
    text += "def leaf" + std::to_string(leaf) + "(x):\n    return torch.relu(x)\n";
  }
  text += "def late(x):\n    torch.cuda.synchronize()\n";
  for (int caller = 0; caller < 250; ++caller) {
    text += "def caller" + std::to_string(caller) + "(x):\n";
    for (int k = 0; k < 24; ++k) text += "    leaf" + std::to_string(caller * 24 + k) + "(x)\n";
  }
  text += kCapture;
  for (int caller = 0; caller < 250; ++caller) {
    text += "    caller" + std::to_string(caller) + "(x)\n";
  }
  text += "    late(x)\n";
  RunResult result = analyze({source("wide.py", text)});
  std::vector<const Notice*> cut;
  for (const Notice& notice : result.notices) {
    if (notice.incomplete && notice.message.find("checked only in part") != std::string::npos) {
      cut.push_back(&notice);
    }
  }
  ASSERT_EQ(cut.size(), 1u);
  EXPECT_EQ(cut[0]->path, "wide.py");
  const std::size_t site = text.find("with torch.cuda.graph(g):");
  EXPECT_EQ(cut[0]->line,
            static_cast<std::int32_t>(std::count(text.begin(), text.begin() + site, '\n')));
  EXPECT_NE(cut[0]->message.find("4096 function visits"), std::string::npos) << cut[0]->message;
  // A region within its budget says nothing of the kind.
  RunResult small = analyze({source("small.py", std::string(kCapture) + "    torch.relu(x)\n")});
  for (const Notice& notice : small.notices) EXPECT_FALSE(notice.incomplete) << notice.message;
}

TEST(PathologicalCostTest, NestedLambdasCostMemoryLinearInTheirDepth) {
  // `lambda x: lambda x: ...` 20,000 deep (200 KB): each level's qualified name held every level
  // above it, 3.6 GB of names in all. Now a name stops growing past a few dozen levels.
  const std::size_t depth = 20'000;
  std::string text = "import torch\nf = " + repeat("lambda x: ", depth) + "x\n";
  ProgramModel model = program({source("lambdas.py", text)});
  std::size_t names = 0;
  std::size_t lambdas = 0;
  for (const FunctionModel& function : model.files()[0].functions) {
    names += function.qualified_name.size();
    lambdas += function.is_lambda ? 1 : 0;
  }
  EXPECT_EQ(lambdas, depth);
  EXPECT_LT(names, depth * 600);
}

TEST(PathologicalCostTest, AnAllToAllCallGraphStopsAtTheEvaluatorsBudget) {
  // 300 functions that all call each other: typing their parameters from their call sites
  // asked for about n^3 / 2 call sites (600 functions took 80 s). The evaluator stops at its
  // budget, and the run says the types past it were unknown.
  const int n = 300;
  std::string text = "import torch\n";
  for (int i = 0; i < n; ++i) {
    text += "def f" + std::to_string(i) + "(x):\n";
    for (int j = 0; j < n; ++j) text += "    f" + std::to_string(j) + "(x)\n";
    text += "    return x\n";
  }
  text += std::string(kCapture) + "    f0(x)\n    torch.cuda.synchronize()\n";
  EngineOptions options;
  options.jobs = 1;
  RunResult result = analyzeSources({source("all.py", text)}, options);
  EXPECT_FALSE(findingLines(result, "GS401").empty());
  bool budget = false;
  for (const Notice& notice : result.notices) {
    budget = budget || (notice.incomplete &&
                        notice.message.find("call sites looked at") != std::string::npos);
    // Every function is walked: the calls cut at the depth bound reach functions walked already.
    EXPECT_EQ(notice.message.find("checked only in part"), std::string::npos) << notice.message;
  }
  EXPECT_TRUE(budget);
}

// ---- parsers of user files ------------------------------------------------------------------

TEST(NestingBoundsTest, DeeplyNestedConfigurationsAreErrorsNotCrashes) {
  testing::TempTree tree;
  const std::size_t depth = 100'000;
  tree.write("flow.yaml", "select: " + repeat("[", depth) + repeat("]", depth) + "\n");
  tree.write("block.yaml", [&] {
    std::string text;
    for (std::size_t level = 0; level < 2'000; ++level) text += std::string(level, ' ') + "a:\n";
    return text;
  }());
  tree.write("aliases.yaml",
             "a: &a [x, x, x, x, x, x, x, x, x]\n"
             "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
             "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
             "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
             "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
             "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
             "select: [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n");
  tree.write("deep.toml", "select = " + repeat("[", depth) + repeat("]", depth) + "\n");
  tree.write("tables.toml", "a = " + repeat("{b = ", 10'000) + "1" + repeat("}", 10'000) + "\n");
  for (const char* name : {"flow.yaml", "block.yaml", "aliases.yaml", "deep.toml", "tables.toml"}) {
    Clock::time_point start = Clock::now();
    EXPECT_THROW(loadConfigFile(tree.path(name)), ConfigError) << name;
    EXPECT_LT(secondsSince(start), 30.0) << name;
  }
}

TEST(ResourceBounds, AFailureInAWorkerThreadReachesTheCaller) {
  // std::bad_alloc in one file's work used to end the process from a worker thread (terminate,
  // no results, no file named); it now reaches the caller, which can say what happened.
  std::atomic<int> ran{0};
  EXPECT_THROW(parallelFor(1000, 4,
                           [&](std::size_t i) {
                             ++ran;
                             if (i == 10) throw std::bad_alloc();
                             // Items take a moment, so that the workers' stopping is what keeps
                             // `ran` below 1000, not a race with trivially short items.
                             std::this_thread::sleep_for(std::chrono::milliseconds(1));
                           }),
               std::bad_alloc);
  EXPECT_LT(ran.load(), 1000);
  std::vector<int> done(100, 0);
  parallelFor(done.size(), 4, [&](std::size_t i) { done[i] = 1; });
  EXPECT_EQ(std::count(done.begin(), done.end(), 1), 100);
}

}  // namespace
}  // namespace graphsafe
