// The runtime probe's integrity, checked without a GPU: the newest results file measured the case
// files exactly as they are now (SHA-256), except the new ones runtime-probe/AWAITING-GPU.md lists
// until a GPU run measures them, every record names a case that exists, the timing records of
// the performance rules agree with their own numbers, every rule has cases (or a reason in
// runtime-probe/NO-CASE.md), the runner classifies correctly (its self-test), and each case agrees
// with the static checks: a bug file gets its rule's diagnostic on the line marked
// `# hazard: GSxxx` (`// hazard:` in C++), a fix file gets none of it.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/catalog/rule_catalog.h"
#include "analyzer/engine/cuda_frontend_loader.h"
#include "analyzer/engine/engine.h"

namespace graphsafe::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kProbeDir = fs::path(GRAPHSAFE_SOURCE_DIR) / "runtime-probe";
const fs::path kCasesDir = kProbeDir / "cases";
const char* const kRerun =
    "run `runtime-probe/run` on a GPU and commit its results with the cases they measured "
    "(runtime-probe/README.md)";

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// The case files the runner runs: cases/<python|cuda>/<ID>-<name>/{bug,fix}*.{py,cu}, as paths
// relative to the cases directory.
std::vector<std::string> caseFiles() {
  std::vector<std::string> files;
  for (const auto& [language, ext] : {std::pair{"python", ".py"}, std::pair{"cuda", ".cu"}}) {
    std::error_code error;
    for (const auto& dir : fs::directory_iterator(kCasesDir / language, error)) {
      if (!dir.is_directory()) continue;
      for (const auto& file : fs::directory_iterator(dir.path())) {
        const std::string name = file.path().filename().string();
        if (!file.is_regular_file() || file.path().extension() != ext) continue;
        if (!name.starts_with("bug") && !name.starts_with("fix")) continue;
        files.push_back(fs::relative(file.path(), kCasesDir).generic_string());
      }
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// SHA-256 through coreutils' sha256sum: no hashing code of our own to get wrong.
std::string sha256Of(const fs::path& path) {
  const std::string text = path.string();
  if (text.find('\'') != std::string::npos) return "";
  const std::string command = "sha256sum -- '" + text + "' 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return "";
  std::array<char, 128> buffer{};
  std::string out;
  while (std::fgets(buffer.data(), buffer.size(), pipe.get()) != nullptr) out += buffer.data();
  return out.size() >= 64 ? out.substr(0, 64) : "";
}

// The newest results file by its start time (file name as the tie-break), parsed.
struct Results {
  fs::path path;
  json report;
};

std::optional<Results> newestResults() {
  std::optional<Results> newest;
  std::string newest_key;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(kProbeDir / "results", error)) {
    if (entry.path().extension() != ".json") continue;
    json report = json::parse(readFile(entry.path()), nullptr, /*allow_exceptions=*/false);
    if (!report.is_object()) continue;
    const std::string key =
        report.value("started_at", std::string()) + " " + entry.path().filename().string();
    if (!newest || key > newest_key) {
      newest = Results{entry.path(), std::move(report)};
      newest_key = key;
    }
  }
  return newest;
}

// path -> record of the newest results file.
std::map<std::string, json> recordsByPath(const json& report) {
  std::map<std::string, json> records;
  if (!report.contains("cases") || !report["cases"].is_array()) return records;
  for (const json& record : report["cases"]) {
    if (record.is_object() && record.contains("path") && record["path"].is_string()) {
      records[record["path"].get<std::string>()] = record;
    }
  }
  return records;
}

// The case files written since the newest run, which no GPU has measured yet:
// "- `python/GS601-fragmented-graph/bug.py`" lines of runtime-probe/AWAITING-GPU.md.
std::set<std::string> awaitingGpu() {
  static const std::regex line(R"(^- `([^`]+)`)");
  std::set<std::string> paths;
  std::istringstream in(readFile(kProbeDir / "AWAITING-GPU.md"));
  std::string text;
  while (std::getline(in, text)) {
    std::smatch match;
    if (std::regex_search(text, match, line)) paths.insert(match[1].str());
  }
  return paths;
}

// The results schema the runner writes (`SCHEMA_VERSION = N` in runtime-probe/run).
int runnerSchema() {
  static const std::regex assignment(R"(\nSCHEMA_VERSION = ([0-9]+)\n)");
  const std::string text = readFile(kProbeDir / "run");
  std::smatch match;
  return std::regex_search(text, match, assignment) ? std::stoi(match[1].str()) : 0;
}

std::string ruleIdOf(const std::string& case_path) {
  // "python/GS401-host-sync/bug.py" -> "GS401"
  const std::string dir = fs::path(case_path).parent_path().filename().string();
  return dir.substr(0, dir.find('-'));
}

TEST(ProbeResults, NewestResultsFileParses) {
  auto results = newestResults();
  ASSERT_TRUE(results.has_value()) << "no parseable runtime-probe/results/*.json: " << kRerun;
  const json& report = results->report;
  // An older file stays valid until the next run writes the runner's schema.
  ASSERT_GT(runnerSchema(), 0) << "no SCHEMA_VERSION in runtime-probe/run";
  EXPECT_GE(report.value("schema", 0), 1) << results->path;
  EXPECT_LE(report.value("schema", 0), runnerSchema()) << results->path;
  ASSERT_TRUE(report.contains("environment") && report["environment"].is_object());
  EXPECT_TRUE(report["environment"].contains("gpu")) << results->path;
  ASSERT_TRUE(report.contains("cases") && report["cases"].is_array()) << results->path;
  const std::set<std::string> verdicts = {"reproduced", "correct",    "not-reproduced", "fix-wrong",
                                          "slower",     "not-slower", "timeout",        "crash"};
  for (const json& record : report["cases"]) {
    ASSERT_TRUE(record.is_object());
    for (const char* key : {"path", "rule", "kind", "verdict", "sha256"}) {
      EXPECT_TRUE(record.contains(key) && record[key].is_string())
          << results->path << ": a record lacks " << key;
    }
    for (const char* key : {"observed", "expected", "capture_error", "seconds"}) {
      EXPECT_TRUE(record.contains(key)) << results->path << ": a record lacks " << key;
    }
    EXPECT_EQ(verdicts.count(record.value("verdict", std::string())), 1u)
        << record.value("path", std::string());
  }
}

TEST(ProbeResults, EveryCaseFileWasMeasuredAsItIsNow) {
  auto results = newestResults();
  ASSERT_TRUE(results.has_value()) << kRerun;
  const auto records = recordsByPath(results->report);
  const std::vector<std::string> files = caseFiles();
  const std::set<std::string> awaiting = awaitingGpu();
  ASSERT_FALSE(files.empty()) << "no case files under " << kCasesDir;
  for (const std::string& file : files) {
    auto record = records.find(file);
    const std::string actual = sha256Of(kCasesDir / file);
    ASSERT_EQ(actual.size(), 64u) << "sha256sum failed on " << file;
    const bool measured =
        record != records.end() && record->second.value("sha256", std::string()) == actual;
    if (awaiting.count(file) != 0) {
      // The list only shrinks: once a run measured the file as it is, it leaves the list.
      EXPECT_FALSE(measured) << file << " was measured by " << results->path.filename()
                             << ": remove it from runtime-probe/AWAITING-GPU.md";
      continue;
    }
    if (record == records.end()) {
      ADD_FAILURE() << file << " has no record in " << results->path.filename() << ": " << kRerun;
      continue;
    }
    EXPECT_TRUE(measured) << file << " changed after " << results->path.filename()
                          << " measured it: " << kRerun;
  }
}

TEST(ProbeResults, EveryCaseAwaitingAGpuExists) {
  for (const std::string& file : awaitingGpu()) {
    EXPECT_TRUE(fs::is_regular_file(kCasesDir / file))
        << "runtime-probe/AWAITING-GPU.md lists " << file << ", which is no case file";
  }
}

// The performance rules' cases are timing cases: each record holds its time per run, and a
// bug's verdict is what its ratios to its fix say (slower: at least the threshold in every run).
TEST(ProbeResults, TimingRecordsAgreeWithTheirNumbers) {
  auto results = newestResults();
  ASSERT_TRUE(results.has_value()) << kRerun;
  const auto records = recordsByPath(results->report);
  for (const auto& [path, record] : records) {
    const std::string verdict = record.value("verdict", std::string());
    const bool timing_rule = ruleIdOf(path).starts_with("GS6");
    if (!timing_rule) {
      EXPECT_NE(verdict, "slower") << path;
      EXPECT_NE(verdict, "not-slower") << path;
      continue;
    }
    if (verdict == "timeout" || verdict == "crash") continue;
    ASSERT_TRUE(record.contains("timing") && record["timing"].is_object()) << path;
    const json& timing = record["timing"];
    const int runs = timing.value("runs", 0);
    EXPECT_GE(runs, 1) << path;
    ASSERT_TRUE(timing.contains("ms_per_iteration") && timing["ms_per_iteration"].is_array())
        << path;
    EXPECT_EQ(timing["ms_per_iteration"].size(), static_cast<std::size_t>(runs)) << path;
    if (verdict != "slower" && verdict != "not-slower") continue;
    ASSERT_TRUE(record.contains("ratio") && record["ratio"].is_object()) << path;
    const json& ratio = record["ratio"];
    const std::string fix = ratio.value("fix", std::string());
    auto fix_record = records.find(fix);
    ASSERT_NE(fix_record, records.end()) << path << " is compared with " << fix;
    EXPECT_EQ(fix_record->second.value("verdict", std::string()), "correct") << fix;
    ASSERT_TRUE(ratio.contains("per_run") && ratio["per_run"].is_array()) << path;
    EXPECT_EQ(ratio["per_run"].size(), static_cast<std::size_t>(runs)) << path;
    double least = 1e300;
    for (const json& value : ratio["per_run"]) least = std::min(least, value.get<double>());
    EXPECT_DOUBLE_EQ(ratio.value("min", 0.0), least) << path;
    EXPECT_LE(ratio.value("min", 0.0), ratio.value("median", 0.0)) << path;
    EXPECT_LE(ratio.value("median", 0.0), ratio.value("max", 0.0)) << path;
    EXPECT_EQ(verdict, least >= ratio.value("threshold", 0.0) ? "slower" : "not-slower") << path;
  }
}

TEST(ProbeResults, EveryRecordNamesAnExistingCase) {
  auto results = newestResults();
  ASSERT_TRUE(results.has_value()) << kRerun;
  for (const auto& [path, record] : recordsByPath(results->report)) {
    EXPECT_TRUE(fs::is_regular_file(kCasesDir / path))
        << results->path.filename() << " records " << path << ", which no longer exists";
    EXPECT_EQ(record.value("rule", std::string()), ruleIdOf(path)) << path;
  }
}

TEST(ProbeResults, EveryRuleHasACaseOrAReason) {
  const std::string no_case = readFile(kProbeDir / "NO-CASE.md");
  for (const RuleInfo& rule : RuleCatalog::instance().rules()) {
    const std::string dir = rule.id + "-" + rule.name;
    const bool has_case =
        fs::is_directory(kCasesDir / "python" / dir) || fs::is_directory(kCasesDir / "cuda" / dir);
    const bool explained = std::regex_search(no_case, std::regex("\\b" + rule.id + "\\b"));
    EXPECT_TRUE(has_case || explained)
        << rule.id << " has no case directory (runtime-probe/cases/*/" << dir
        << ") and no entry in runtime-probe/NO-CASE.md";
  }
  for (const std::string& file : caseFiles()) {
    const RuleInfo* rule = RuleCatalog::instance().find(ruleIdOf(file));
    ASSERT_NE(rule, nullptr) << file << " is filed under a rule the catalog does not have";
    EXPECT_EQ(fs::path(file).parent_path().filename().string(), rule->id + "-" + rule->name)
        << file;
  }
}

TEST(ProbeRunner, SelfTestPasses) {
  if (std::system("python3 --version >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "python3 is not available";
  }
  const std::string command =
      "python3 '" + (kProbeDir / "run").string() + "' --selftest >/dev/null 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0)
      << "runtime-probe/run --selftest failed; run it by hand to see which check";
}

// ---- each case against the static checks --------------------------------------------------

// The rule IDs marked on each line: `# hazard: GS401` or `// hazard: GS301, GS304`.
std::map<std::uint32_t, std::set<std::string>> hazardLines(const std::string& text) {
  static const std::regex marker(R"((?:#|//)\s*hazard:\s*(GS[0-9]{3}(?:\s*,\s*GS[0-9]{3})*))");
  static const std::regex id("GS[0-9]{3}");
  std::map<std::uint32_t, std::set<std::string>> lines;
  std::istringstream in(text);
  std::string line;
  for (std::uint32_t number = 0; std::getline(in, line); ++number) {
    std::smatch match;
    if (!std::regex_search(line, match, marker)) continue;
    const std::string ids = match[1].str();
    for (auto it = std::sregex_iterator(ids.begin(), ids.end(), id); it != std::sregex_iterator();
         ++it) {
      lines[number].insert(it->str());
    }
  }
  return lines;
}

bool cudaFrontendAvailable() {
  static const bool available = [] {
    std::string error;
    return loadCudaFrontend(error) != nullptr;
  }();
  return available;
}

class ProbeCaseDiagnostics : public ::testing::TestWithParam<std::string> {};

// Bug cases whose rule has a check but whose form the analysis does not see yet: honest known
// misses, skipped with their reason. Once a case is detected, the test fails until its entry is
// removed, so the list can only shrink.
const std::map<std::string, std::string>& knownMisses() {
  static const std::map<std::string, std::string> misses = {
      {"cuda/GS304-extension-default-stream/bug.cu",
       "the C++ stand-in includes no torch/ATen header, so nothing marks it as extension code"},
  };
  return misses;
}

TEST_P(ProbeCaseDiagnostics, MatchTheHazardMarkers) {
  const std::string& file = GetParam();
  const RuleInfo* rule = RuleCatalog::instance().find(ruleIdOf(file));
  ASSERT_NE(rule, nullptr) << file;
  if (!rule->implemented) GTEST_SKIP() << rule->id << " has no check in this build yet";
  const bool is_cuda = fs::path(file).extension() == ".cu";
  if (is_cuda && !cudaFrontendAvailable()) GTEST_SKIP() << "the CUDA frontend is not built";

  const fs::path path = kCasesDir / file;
  auto source = std::make_shared<SourceFile>(path.string(), readFile(path));
  EngineOptions options;
  options.jobs = 1;
  options.selection.select = {rule->id};
  const RunResult result = analyzeSources({source}, options);

  std::set<std::uint32_t> reported;
  for (const Diagnostic& d : result.diagnostics) {
    if (d.rule_id == rule->id) reported.insert(d.range.start.line);
  }
  const bool is_bug = fs::path(file).filename().string().starts_with("bug");
  if (!is_bug) {
    for (std::uint32_t line : reported) {
      ADD_FAILURE() << file << ":" << line + 1 << ": " << rule->id
                    << " reported in a fix case, which must be free of it";
    }
    return;
  }
  if (auto miss = knownMisses().find(file); miss != knownMisses().end()) {
    for (const auto& [line, ids] : hazardLines(source->text())) {
      EXPECT_EQ(ids.count(rule->id) != 0 && reported.count(line) != 0, false)
          << file << " is now detected: remove it from knownMisses()";
    }
    GTEST_SKIP() << "known miss: " << miss->second;
  }
  bool marked = false;
  for (const auto& [line, ids] : hazardLines(source->text())) {
    if (ids.count(rule->id) == 0) continue;
    marked = true;
    EXPECT_EQ(reported.count(line), 1u)
        << file << ":" << line + 1 << ": the marked hazard does not get " << rule->id;
  }
  EXPECT_TRUE(marked) << file << " has no `hazard: " << rule->id << "` marker";
}

std::string caseTestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Cases, ProbeCaseDiagnostics, ::testing::ValuesIn(caseFiles()),
                         caseTestName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ProbeCaseDiagnostics);

TEST(ProbeCaseDiagnostics, HazardMarkersParse) {
  auto lines = hazardLines(
      "x = 1\n"
      "y = t.item()  # hazard: GS401\n"
      "k<<<1, n>>>(p);  // hazard: GS301, GS304\n"
      "s = 'hazard'\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1], (std::set<std::string>{"GS401"}));
  EXPECT_EQ(lines[2], (std::set<std::string>{"GS301", "GS304"}));
}

}  // namespace
}  // namespace graphsafe::testing
