#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "analyzer/catalog/rule_catalog.h"
#include "analyzer/output/output_format.h"
#include "tests/sample_result.h"

namespace graphsafe {
namespace {

using nlohmann::json;

json writtenSarif(const RunResult& result, const std::string& cwd = "/work/proj") {
  OutputOptions options;
  options.working_directory = cwd;
  std::ostringstream out;
  writeSarif(result, out, options);
  return json::parse(out.str());
}

json region(int start_line, int start_column, int end_line, int end_column) {
  return {{"startLine", start_line},
          {"startColumn", start_column},
          {"endLine", end_line},
          {"endColumn", end_column}};
}

TEST(SarifOutputTest, DocumentAndDriver) {
  json sarif = writtenSarif(testing::sampleResult());
  EXPECT_EQ(sarif["version"], "2.1.0");
  EXPECT_TRUE(sarif["$schema"].get<std::string>().find("sarif") != std::string::npos);
  ASSERT_EQ(sarif["runs"].size(), 1u);
  const json& run = sarif["runs"][0];
  EXPECT_EQ(run["columnKind"], "utf16CodeUnits");
  EXPECT_EQ(run["originalUriBaseIds"]["%SRCROOT%"]["uri"], "file:///work/proj/");

  const json& driver = run["tool"]["driver"];
  EXPECT_EQ(driver["name"], "graphsafe");
  EXPECT_EQ(driver["version"], GRAPHSAFE_VERSION);
  EXPECT_TRUE(driver["informationUri"].get<std::string>().starts_with("https://"));

  const auto& catalog = RuleCatalog::instance().rules();
  ASSERT_FALSE(catalog.empty());
  ASSERT_EQ(driver["rules"].size(), catalog.size());
  for (std::size_t i = 0; i < catalog.size(); ++i) {
    const json& rule = driver["rules"][i];
    SCOPED_TRACE(catalog[i].id);
    EXPECT_EQ(rule["id"], catalog[i].id);
    EXPECT_EQ(rule["name"], catalog[i].name);
    EXPECT_EQ(rule["shortDescription"]["text"], catalog[i].summary);
    EXPECT_FALSE(rule["fullDescription"]["text"].get<std::string>().empty());
    EXPECT_FALSE(rule["help"]["text"].get<std::string>().empty());
    EXPECT_NE(rule["help"]["markdown"].get<std::string>().find(catalog[i].id), std::string::npos);
    EXPECT_EQ(rule["helpUri"], catalog[i].docsUrl());
    EXPECT_EQ(rule["defaultConfiguration"]["level"], severityName(catalog[i].severity));
    EXPECT_TRUE(rule["properties"]["tags"].is_array());
    EXPECT_FALSE(rule["properties"]["tags"].empty());
  }

  ASSERT_EQ(run["invocations"].size(), 1u);
  EXPECT_EQ(run["invocations"][0]["executionSuccessful"], true);
  const json& notifications = run["invocations"][0]["toolExecutionNotifications"];
  ASSERT_EQ(notifications.size(), 2u);
  EXPECT_EQ(notifications[0]["message"]["text"], "syntax error: unexpected indent");
  EXPECT_EQ(notifications[0]["level"], "warning");
  EXPECT_EQ(notifications[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "src/broken.py");
  EXPECT_EQ(notifications[0]["locations"][0]["physicalLocation"]["region"]["startLine"], 3);
  EXPECT_FALSE(notifications[1]["locations"][0]["physicalLocation"].contains("region"));
}

TEST(SarifOutputTest, Results) {
  json sarif = writtenSarif(testing::sampleResult());
  const json& run = sarif["runs"][0];
  const json& results = run["results"];
  ASSERT_EQ(results.size(), 3u);

  const json& sync = results[1];
  EXPECT_EQ(sync["ruleId"], "GS401");
  std::size_t index = sync["ruleIndex"];
  EXPECT_EQ(run["tool"]["driver"]["rules"][index]["id"], "GS401");
  EXPECT_EQ(sync["level"], "error");
  EXPECT_EQ(sync["message"]["text"],
            "`.item()` copies a device value to the host, which capture does not allow");
  const json& location = sync["locations"][0]["physicalLocation"];
  EXPECT_EQ(location["artifactLocation"]["uri"], "src/train.py");
  EXPECT_EQ(location["artifactLocation"]["uriBaseId"], "%SRCROOT%");
  // UTF-16 columns: the emoji counts two.
  EXPECT_EQ(location["region"], region(6, 18, 6, 29));

  ASSERT_EQ(sync["relatedLocations"].size(), 2u);
  EXPECT_EQ(sync["relatedLocations"][0]["id"], 0);
  EXPECT_EQ(sync["relatedLocations"][0]["message"]["text"], "capture region starts here");
  EXPECT_EQ(sync["relatedLocations"][0]["physicalLocation"]["region"], region(4, 6, 4, 25));
  EXPECT_EQ(sync["relatedLocations"][1]["id"], 1);
  EXPECT_EQ(sync["relatedLocations"][1]["physicalLocation"]["artifactLocation"]["uri"],
            "src/helpers.py");

  // The code flow: capture site -> call -> the finding.
  const json& steps = sync["codeFlows"][0]["threadFlows"][0]["locations"];
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0]["location"]["message"]["text"], "capture region starts here");
  EXPECT_EQ(steps[1]["location"]["physicalLocation"]["artifactLocation"]["uri"], "src/helpers.py");
  EXPECT_EQ(steps[2]["location"]["physicalLocation"]["region"], region(6, 18, 6, 29));

  std::string hash = sync["partialFingerprints"]["primaryLocationLineHash"];
  EXPECT_TRUE(std::regex_match(hash, std::regex("[0-9a-f]{16}:1"))) << hash;

  ASSERT_EQ(sync["fixes"].size(), 1u);
  EXPECT_EQ(sync["fixes"][0]["description"]["text"], "drop the host copy");
  const json& change = sync["fixes"][0]["artifactChanges"][0];
  EXPECT_EQ(change["artifactLocation"]["uri"], "src/train.py");
  EXPECT_EQ(change["replacements"][0]["deletedRegion"], region(6, 14, 6, 30));
  EXPECT_EQ(change["replacements"][0]["insertedContent"]["text"], "loss");

  const json& branch = results[2];
  EXPECT_EQ(branch["level"], "warning");
  EXPECT_FALSE(branch.contains("relatedLocations"));
  EXPECT_FALSE(branch.contains("codeFlows"));
  EXPECT_FALSE(branch.contains("fixes"));
}

TEST(SarifOutputTest, FingerprintsFollowTheLineNotItsPosition) {
  auto file = std::make_shared<const SourceFile>("a.py", "x.item()\n  x.item()\ny.item()\n");
  auto make = [&](std::uint32_t begin) {
    Diagnostic d;
    d.rule_id = "GS401";
    d.rule_name = "host-sync";
    d.file = file;
    d.range = file->rangeOf(begin, begin + 1);
    d.message = "m";
    return d;
  };
  RunResult result;
  result.diagnostics = {make(0), make(11), make(20)};
  json results = writtenSarif(result)["runs"][0]["results"];
  std::string first = results[0]["partialFingerprints"]["primaryLocationLineHash"];
  std::string second = results[1]["partialFingerprints"]["primaryLocationLineHash"];
  std::string third = results[2]["partialFingerprints"]["primaryLocationLineHash"];
  // Same text once whitespace is gone: same hash, next occurrence.
  EXPECT_EQ(first.substr(0, 16), second.substr(0, 16));
  EXPECT_EQ(first.substr(16), ":1");
  EXPECT_EQ(second.substr(16), ":2");
  EXPECT_NE(first.substr(0, 16), third.substr(0, 16));
}

TEST(SarifOutputTest, UrisAreRelativeAndPercentEncoded) {
  auto spaced = std::make_shared<const SourceFile>("my dir/a b#1.py", "x\n");
  auto inside = std::make_shared<const SourceFile>("/work/proj/lib/y.py", "x\n");
  auto outside = std::make_shared<const SourceFile>("/elsewhere/z.py", "x\n");
  auto up = std::make_shared<const SourceFile>("../other/w.py", "x\n");
  RunResult result;
  for (const auto& file : {spaced, inside, outside, up}) {
    Diagnostic d;
    d.rule_id = "GS401";
    d.rule_name = "host-sync";
    d.file = file;
    d.range = file->rangeOf(0, 1);
    d.message = "m";
    result.diagnostics.push_back(d);
  }
  json results = writtenSarif(result)["runs"][0]["results"];
  auto artifact = [&](int i) {
    return results[i]["locations"][0]["physicalLocation"]["artifactLocation"];
  };
  EXPECT_EQ(artifact(0), json({{"uri", "my%20dir/a%20b%231.py"}, {"uriBaseId", "%SRCROOT%"}}));
  EXPECT_EQ(artifact(1), json({{"uri", "lib/y.py"}, {"uriBaseId", "%SRCROOT%"}}));
  EXPECT_EQ(artifact(2), json({{"uri", "file:///elsewhere/z.py"}}));
  EXPECT_EQ(artifact(3), json({{"uri", "file:///work/other/w.py"}}));
}

}  // namespace
}  // namespace graphsafe
