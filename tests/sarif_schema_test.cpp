// graphsafe's SARIF against the SARIF 2.1.0 JSON schema (fetched, pinned, at configure time;
// see cmake/SarifSchema.cmake), and against what GitHub code scanning requires of an upload,
// field by field (docs.github.com, "SARIF support for code scanning").
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "analyzer/output/output_format.h"
#include "tests/json_schema_checker.h"
#include "tests/sample_result.h"
#include "tests/temp_tree.h"

namespace graphsafe {
namespace {

using nlohmann::json;

json sampleSarif() {
  std::ostringstream out;
  OutputOptions options;
  options.working_directory = "/work/project";
  writeSarif(testing::sampleResult(), out, options);
  return json::parse(out.str());
}

// A real run of the binary on a small tree.
json binarySarif() {
  testing::TempTree tree;
  tree.write("pkg/train step.py",
             "import torch\n"
             "\n"
             "def helper(t):\n"
             "    return t.item()\n"
             "\n"
             "g = torch.cuda.CUDAGraph()\n"
             "with torch.cuda.graph(g):\n"
             "    y = helper(x)\n"
             "    if x.sum() > 0:\n"
             "        pass\n");
  tree.write("pkg/bad.py", "def (:\n");
  std::string out = tree.path("out.sarif");
  std::string command = "cd '" + tree.path() + "' && '" + GRAPHSAFE_BINARY +
                        "' check pkg --format sarif -o out.sarif >/dev/null 2>&1";
  int status = std::system(command.c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1);
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str(), nullptr, false);
}

TEST(SarifSchemaTest, ValidatesAgainstTheSarif210Schema) {
  std::string schema_path = GRAPHSAFE_SARIF_SCHEMA;
  if (schema_path.empty())
    GTEST_SKIP() << "the SARIF schema could not be fetched at configure time";
  std::ifstream in(schema_path);
  ASSERT_TRUE(in) << schema_path;
  json schema = json::parse(in);
  ASSERT_EQ(schema["properties"]["version"]["enum"][0], "2.1.0");
  testing::JsonSchemaChecker checker(schema);

  // The checker itself catches what it must.
  json broken = sampleSarif();
  broken["runs"][0]["results"][0].erase("message");
  broken["runs"][0]["results"][0]["level"] = "fatal";
  broken["runs"][0]["tool"]["driver"]["rules"][0]["defaultConfiguration"]["rank"] = 200;
  EXPECT_GE(checker.validate(broken).size(), 3u);

  for (const json& document : {sampleSarif(), binarySarif()}) {
    ASSERT_FALSE(document.is_discarded());
    std::vector<std::string> errors = checker.validate(document);
    std::string all;
    for (const std::string& error : errors) all += error + "\n";
    EXPECT_TRUE(errors.empty()) << all;
  }
}

// What GitHub's upload checks and its code scanning UI use, one field at a time.
void checkGithubRequirements(const json& sarif) {
  EXPECT_EQ(sarif["version"], "2.1.0");
  EXPECT_TRUE(sarif["$schema"].is_string());
  ASSERT_TRUE(sarif["runs"].is_array());
  ASSERT_GE(sarif["runs"].size(), 1u);
  EXPECT_LE(sarif["runs"].size(), 20u);  // GitHub: at most 20 runs per file
  for (const json& run : sarif["runs"]) {
    const json& driver = run["tool"]["driver"];
    EXPECT_TRUE(driver["name"].is_string() && !driver["name"].get<std::string>().empty());
    ASSERT_TRUE(driver["rules"].is_array());
    EXPECT_LE(driver["rules"].size(), 25000u);
    std::set<std::string> rule_ids;
    for (const json& rule : driver["rules"]) {
      ASSERT_TRUE(rule["id"].is_string());
      EXPECT_TRUE(rule_ids.insert(rule["id"]).second) << "duplicate rule " << rule["id"];
      EXPECT_TRUE(rule["shortDescription"]["text"].is_string());
      EXPECT_TRUE(rule["fullDescription"]["text"].is_string());
      EXPECT_TRUE(rule["help"]["text"].is_string());
      EXPECT_TRUE(rule["helpUri"].is_string());
      std::string level = rule["defaultConfiguration"]["level"];
      EXPECT_TRUE(level == "error" || level == "warning" || level == "note") << level;
      EXPECT_LE(rule["properties"]["tags"].size(), 20u);  // GitHub: at most 20 tags
    }
    ASSERT_TRUE(run["results"].is_array());
    EXPECT_LE(run["results"].size(), 25000u);
    for (const json& result : run["results"]) {
      ASSERT_TRUE(result["ruleId"].is_string());
      EXPECT_TRUE(rule_ids.count(result["ruleId"])) << result["ruleId"];
      std::size_t index = result["ruleIndex"];
      EXPECT_EQ(driver["rules"][index]["id"], result["ruleId"]);
      EXPECT_TRUE(result["message"]["text"].is_string());
      std::string level = result["level"];
      EXPECT_TRUE(level == "error" || level == "warning" || level == "note");
      ASSERT_TRUE(result["locations"].is_array());
      ASSERT_GE(result["locations"].size(), 1u);
      const json& physical = result["locations"][0]["physicalLocation"];
      std::string uri = physical["artifactLocation"]["uri"];
      EXPECT_FALSE(uri.empty());
      EXPECT_EQ(uri.find(' '), std::string::npos) << "URIs are percent-encoded";
      if (physical["artifactLocation"].contains("uriBaseId")) {
        EXPECT_TRUE(run["originalUriBaseIds"].contains(
            physical["artifactLocation"]["uriBaseId"].get<std::string>()));
        EXPECT_FALSE(uri.starts_with("/"));
      }
      const json& region = physical["region"];
      EXPECT_GE(region["startLine"].get<int>(), 1);
      EXPECT_GE(region["startColumn"].get<int>(), 1);
      EXPECT_GE(region["endLine"].get<int>(), region["startLine"].get<int>());
      std::string hash = result["partialFingerprints"]["primaryLocationLineHash"];
      EXPECT_TRUE(std::regex_match(hash, std::regex("[0-9a-f]+:[0-9]+"))) << hash;
      if (result.contains("relatedLocations")) {
        EXPECT_LE(result["relatedLocations"].size(), 1000u);
      }
      if (result.contains("codeFlows")) {
        for (const json& flow : result["codeFlows"]) {
          for (const json& thread : flow["threadFlows"]) {
            EXPECT_FALSE(thread["locations"].empty());
          }
        }
      }
    }
  }
}

TEST(SarifSchemaTest, MeetsGithubCodeScanningRequirements) {
  checkGithubRequirements(sampleSarif());
  json real = binarySarif();
  ASSERT_FALSE(real.is_discarded());
  checkGithubRequirements(real);
  EXPECT_EQ(
      real["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
      "pkg/train%20step.py");
}

}  // namespace
}  // namespace graphsafe
