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
