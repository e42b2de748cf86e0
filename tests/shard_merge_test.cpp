// --shard I/N and `graphsafe merge`: the shards of a run partition its findings (each finding in
// exactly one shard, cross-file findings included), and merging the shards' SARIF gives the
// unsharded run's SARIF results, for every shard count from 1 to 4 on the fixtures.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/cli/check_command.h"
#include "analyzer/engine/engine.h"
#include "analyzer/output/output_format.h"
#include "analyzer/output/sarif_merge.h"
#include "tests/temp_tree.h"

namespace graphsafe {
namespace {

using nlohmann::json;
using testing::TempTree;

std::string key(const Diagnostic& d) {
  return d.path() + ":" + std::to_string(d.range.begin) + ":" + d.rule_id + ":" + d.message;
}

json sarifOf(const RunResult& result) {
  std::ostringstream out;
  OutputOptions options;
  writeSarif(result, out, options);
  return json::parse(out.str());
}

// The fixtures' run, analyzed once for every test here.
const RunResult& fixturesRun() {
  static const RunResult result = [] {
    EngineOptions options;
    options.paths = {std::string(GRAPHSAFE_SOURCE_DIR) + "/fixtures"};
    options.jobs = 2;
    return runAnalysis(options);
  }();
  return result;
}

TEST(Shard, ParsesIndexAndCount) {
  ASSERT_TRUE(parseShard("1/1"));
  EXPECT_EQ(parseShard("3/4")->index, 3u);
  EXPECT_EQ(parseShard("3/4")->count, 4u);
  for (const char* bad : {"", "1", "0/2", "3/2", "1/0", "a/b", "1/2/3", "-1/2", "1/ 2", "/2"}) {
    EXPECT_FALSE(parseShard(bad)) << bad;
  }
}

TEST(Shard, APathsShardIsStableAndIgnoresALeadingDotSlash) {
  EXPECT_EQ(shardOfPath("src/a.py", 4), shardOfPath("./src/a.py", 4));
  EXPECT_EQ(shardOfPath("src/a.py", 1), 1u);
  std::map<unsigned, int> spread;
  for (int i = 0; i < 400; ++i) ++spread[shardOfPath("pkg/module_" + std::to_string(i) + ".py", 4)];
  ASSERT_EQ(spread.size(), 4u);
  for (const auto& [shard, files] : spread) EXPECT_GT(files, 50) << shard;
}

TEST(Shard, TheShardsOfTheFixturesPartitionTheUnshardedFindings) {
  const RunResult& all = fixturesRun();
  ASSERT_GT(all.diagnostics.size(), 20u);
  std::multiset<std::string> expected;
  for (const Diagnostic& d : all.diagnostics) expected.insert(key(d));
  json unsharded = sarifOf(all);

  for (unsigned count = 1; count <= 4; ++count) {
    SCOPED_TRACE(count);
    std::multiset<std::string> union_of_shards;
    std::vector<json> documents;
    for (unsigned index = 1; index <= count; ++index) {
      RunResult shard = all;
      keepShard(shard, {index, count});
      for (const Diagnostic& d : shard.diagnostics) {
        EXPECT_EQ(shardOfPath(d.path(), count), index);
        union_of_shards.insert(key(d));
      }
      documents.push_back(sarifOf(shard));
    }
    EXPECT_EQ(union_of_shards, expected);

    json merged;
    std::string error;
    ASSERT_TRUE(mergeSarif(documents, {}, merged, error)) << error;
    ASSERT_EQ(merged["runs"].size(), 1u);
    EXPECT_EQ(merged["runs"][0]["results"], unsharded["runs"][0]["results"]);
    EXPECT_EQ(merged["runs"][0]["tool"], unsharded["runs"][0]["tool"]);
  }
}

std::string quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

int shell(const std::string& command) {
  int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

json readJson(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

TEST(Shard, TheCommandLineShardsAndMergesToTheUnshardedReport) {
  TempTree out;
  std::string fixtures = std::string(GRAPHSAFE_SOURCE_DIR) + "/fixtures/python";
  std::string check = quote(GRAPHSAFE_BINARY) +
                      " check -q --exit-zero --format sarif --cache-dir " +
                      quote(out.path("cache")) + " " + quote(fixtures);
  ASSERT_EQ(shell(check + " -o " + quote(out.path("all.sarif"))), 0);
  json all = readJson(out.path("all.sarif"));
  ASSERT_FALSE(all["runs"][0]["results"].empty());
  for (unsigned count = 1; count <= 4; ++count) {
    SCOPED_TRACE(count);
    std::string merge = quote(GRAPHSAFE_BINARY) + " merge";
    for (unsigned index = 1; index <= count; ++index) {
      std::string file = out.path(std::to_string(index) + "of" + std::to_string(count) + ".sarif");
      std::string shard = std::to_string(index) + "/" + std::to_string(count);
      ASSERT_EQ(shell(check + " --shard " + shard + " -o " + quote(file)), 0);
      merge += " " + quote(file);
    }
    ASSERT_EQ(shell(merge + " -o " + quote(out.path("merged.sarif"))), 0);
    json merged = readJson(out.path("merged.sarif"));
    EXPECT_EQ(merged["runs"][0]["results"], all["runs"][0]["results"]);
  }
  EXPECT_EQ(shell(check + " --shard 5/4 2>/dev/null"), 2);
  EXPECT_EQ(shell(quote(GRAPHSAFE_BINARY) + " merge " + quote(fixtures + "/../README.md") +
                  " 2>/dev/null"),
            2);
}

json run(const std::string& tool, const std::vector<std::string>& rules,
         const std::vector<std::pair<std::string, int>>& results) {
  json rule_list = json::array();
  for (const std::string& rule : rules) rule_list.push_back({{"id", rule}});
  json result_list = json::array();
  for (const auto& [rule, line] : results) {
    std::size_t index = 0;
    while (index < rules.size() && rules[index] != rule) ++index;
    result_list.push_back(
        {{"ruleId", rule},
         {"ruleIndex", index},
         {"message", {{"text", "m"}}},
         {"locations",
          json::array({{{"physicalLocation",
                         {{"artifactLocation", {{"uri", "a.py"}}},
                          {"region", {{"startLine", line}, {"startColumn", 1}}}}}}})}});
  }
  return {{"tool", {{"driver", {{"name", tool}, {"rules", rule_list}}}}}, {"results", result_list}};
}

json log(std::vector<json> runs) {
  return {{"version", "2.1.0"}, {"runs", json(runs)}};
}

TEST(SarifMerge, UnitesRulesRenumbersIndexesAndDropsDuplicates) {
  json first = log({run("graphsafe", {"GS101", "GS401"}, {{"GS401", 3}, {"GS101", 9}})});
  json second = log({run("graphsafe", {"GS203", "GS401"}, {{"GS401", 3}, {"GS203", 1}}),
                     run("other-tool", {"X1"}, {{"X1", 2}})});
  json merged;
  std::string error;
  ASSERT_TRUE(mergeSarif({first, second}, {"a", "b"}, merged, error)) << error;
  ASSERT_EQ(merged["runs"].size(), 2u);
  const json& ours = merged["runs"][0];
  ASSERT_EQ(ours["tool"]["driver"]["rules"].size(), 3u);
  std::vector<std::string> ids;
  for (const json& result : ours["results"]) {
    std::string id = result["ruleId"];
    std::size_t index = result["ruleIndex"];
    EXPECT_EQ(ours["tool"]["driver"]["rules"][index]["id"], id);
    ids.push_back(
        id + ":" +
        std::to_string(
            result["locations"][0]["physicalLocation"]["region"]["startLine"].get<int>()));
  }
  // One GS401 at line 3 (it was in both), in file and line order.
  EXPECT_EQ(ids, (std::vector<std::string>{"GS203:1", "GS401:3", "GS101:9"}));
  EXPECT_EQ(merged["runs"][1]["tool"]["driver"]["name"], "other-tool");
}

TEST(SarifMerge, RefusesWhatIsNotASarifLog) {
  json merged;
  std::string error;
  EXPECT_FALSE(mergeSarif({json::object()}, {"x.sarif"}, merged, error));
  EXPECT_NE(error.find("x.sarif"), std::string::npos);
  EXPECT_FALSE(mergeSarif({json{{"version", "2.1.0"}, {"runs", {1, 2}}}}, {"y"}, merged, error));
  EXPECT_TRUE(mergeSarif({}, {}, merged, error));
  EXPECT_TRUE(merged["runs"].empty());
}

}  // namespace
}  // namespace graphsafe
