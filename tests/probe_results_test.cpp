// The probe results a rule page cites: parsed from the results file's JSON, shortened for a
// page, and never a crash on a malformed file.
#include "analyzer/catalog/probe_results.h"

#include <gtest/gtest.h>

#include "analyzer/catalog/rule_catalog.h"
#include "analyzer/catalog/rule_page.h"

namespace graphsafe::testing {
namespace {

TEST(ProbeResults, ParsesEnvironmentAndCases) {
  ProbeRun run = parseProbeRun("2030-01-01-gpu.json", R"({
    "environment": {"gpu": "Some GPU", "driver": "1.2", "cuda_runtime": "13.0", "torch": "2.11"},
    "cases": [
      {"path": "python/GS401-host-sync/bug.py", "verdict": "reproduced", "observed": null,
       "expected": [1.0], "capture_error": "Outer: failed <- Inner: not permitted"},
      {"path": "python/GS401-host-sync/fix.py", "verdict": "correct", "observed": [1.0, 2.0],
       "expected": [1.0, 2.0], "capture_error": null}
    ]})");
  EXPECT_EQ(run.file, "2030-01-01-gpu.json");
  EXPECT_EQ(run.environment, "Some GPU, driver 1.2, CUDA 13.0, PyTorch 2.11");
  ASSERT_EQ(run.cases.size(), 2u);
  const ProbeMeasurement& bug = run.cases.at("python/GS401-host-sync/bug.py");
  EXPECT_EQ(bug.verdict, "reproduced");
  EXPECT_EQ(bug.capture_error, "Inner: not permitted");  // the innermost cause
  EXPECT_EQ(bug.observed, "");
  EXPECT_EQ(run.cases.at("python/GS401-host-sync/fix.py").observed, "[1.0,2.0]");
}

TEST(ProbeResults, LongValuesAreShortenedAtACharacterBoundary) {
  std::string many = "[";
  for (int i = 0; i < 100; ++i) many += (i ? ", " : "") + std::to_string(i);
  many += "]";
  ProbeRun run = parseProbeRun(
      "r.json", R"({"cases": [{"path": "a", "verdict": "reproduced", "observed": )" + many +
                    R"(, "capture_error": "é)" + std::string(200, 'x') + R"("}]})");
  const ProbeMeasurement& m = run.cases.at("a");
  EXPECT_LT(m.observed.size(), 80u);
  EXPECT_EQ(m.observed.substr(m.observed.size() - 3), "...");
  EXPECT_LT(m.capture_error.size(), 80u);
}

TEST(ProbeResults, TimingCasesGiveTheirRatioAndSpread) {
  ProbeRun run = parseProbeRun("t.json", R"({"cases": [
      {"path": "python/GS601-fragmented-graph/bug.py", "verdict": "slower", "observed": true,
       "expected": true, "capture_error": null,
       "timing": {"runs": 3, "ms_per_iteration": [0.41, 0.42, 0.4], "median_ms": 0.41},
       "ratio": {"fix": "python/GS601-fragmented-graph/fix.py", "per_run": [2.4, 2.5, 2.3],
                 "median": 2.4, "min": 2.3, "max": 2.5, "threshold": 1.2}},
      {"path": "python/GS601-fragmented-graph/fix.py", "verdict": "correct", "observed": true,
       "expected": true, "capture_error": null,
       "timing": {"runs": 3, "ms_per_iteration": [0.17, 0.171, 0.18], "median_ms": 0.171}},
      {"path": "python/GS601-fragmented-graph/bug_skipped.py", "verdict": "not-slower",
       "observed": true, "expected": true, "capture_error": null,
       "timing": {"runs": 3, "ms_per_iteration": [0.2, 0.2, 0.2], "median_ms": 0.2},
       "ratio": {"fix": "python/GS601-fragmented-graph/fix.py", "per_run": [1.1, 1.3, 1.2],
                 "median": 1.2, "min": 1.1, "max": 1.3, "threshold": 1.2}},
      {"path": "python/GS601-fragmented-graph/bug_broken.py", "verdict": "crash",
       "observed": null, "expected": null, "capture_error": null,
       "timing": {"runs": 0, "ms_per_iteration": [], "median_ms": null}}
    ]})");
  const ProbeTiming& bug = run.cases.at("python/GS601-fragmented-graph/bug.py").timing;
  EXPECT_EQ(bug.runs, 3u);
  EXPECT_DOUBLE_EQ(bug.median_ms, 0.41);
  EXPECT_EQ(bug.fix, "python/GS601-fragmented-graph/fix.py");
  EXPECT_DOUBLE_EQ(bug.ratio_min, 2.3);
  EXPECT_EQ(run.cases.at("python/GS601-fragmented-graph/bug_broken.py").timing.runs, 0u);

  auto text = [&](const char* path) { return measurementText(run, {"python", path}); };
  EXPECT_EQ(text("python/GS601-fragmented-graph/bug.py"),
            "slower: 2.40x the time per iteration of fix.py (2.30x to 2.50x over 3 runs; "
            "0.41 ms against 0.171 ms)");
  EXPECT_EQ(text("python/GS601-fragmented-graph/fix.py"),
            "correct: 0.171 ms per iteration (median of 3 runs)");
  EXPECT_EQ(text("python/GS601-fragmented-graph/bug_skipped.py"),
            "not-slower: 1.20x the time per iteration of fix.py (1.10x to 1.30x over 3 runs; "
            "0.2 ms against 0.171 ms)");
  EXPECT_EQ(text("python/GS601-fragmented-graph/bug_broken.py"), "crash");
  EXPECT_EQ(text("python/GS601-fragmented-graph/bug_new.py"), "not in the latest run");
}

TEST(ProbeResults, MalformedFilesGiveAnEmptyRun) {
  for (const char* text : {"", "{", "[]", R"({"cases": 3})", R"({"cases": [1, {"path": 2}]})"}) {
    EXPECT_TRUE(parseProbeRun("bad.json", text).empty()) << text;
  }
}

TEST(ProbeResults, EveryRulePageCitesTheEmbeddedRun) {
  const ProbeRun& run = probeRun();
  ASSERT_FALSE(run.empty()) << "the build embeds runtime-probe/results/*.json";
  for (const RuleInfo& rule : RuleCatalog::instance().rules()) {
    std::string page = renderRuleMarkdown(rule);
    EXPECT_NE(page.find(run.environment), std::string::npos) << rule.id;
    for (const ProbeCase& probe : rule.probe_cases) {
      auto it = run.cases.find(probe.path);
      if (it == run.cases.end()) continue;
      EXPECT_NE(page.find(probe.path + "): " + it->second.verdict), std::string::npos)
          << rule.id << " " << probe.path;
    }
  }
}

}  // namespace
}  // namespace graphsafe::testing
