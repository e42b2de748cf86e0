#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "analyzer/output/output_format.h"
#include "tests/sample_result.h"

namespace graphsafe {
namespace {

using nlohmann::json;

json range(int start_line, int start_column, int end_line, int end_column) {
  return {{"start", {{"line", start_line}, {"column", start_column}}},
          {"end", {{"line", end_line}, {"column", end_column}}}};
}

json writtenJson(const RunResult& result) {
  std::ostringstream out;
  writeJson(result, out);
  return json::parse(out.str());
}

TEST(JsonOutputTest, EveryField) {
  json document = writtenJson(testing::sampleResult());
  EXPECT_EQ(document["version"], GRAPHSAFE_VERSION);
  EXPECT_EQ(document["schema"], 1);
  ASSERT_EQ(document["diagnostics"].size(), 3u);

  const json& sync = document["diagnostics"][1];
  EXPECT_EQ(sync["rule"], "GS401");
  EXPECT_EQ(sync["name"], "host-sync");
  EXPECT_EQ(sync["severity"], "error");
  EXPECT_EQ(sync["path"], "src/train.py");
  // 1-based; columns in code points: the tab, é and the emoji count one each.
  EXPECT_EQ(sync["range"], range(6, 17, 6, 28));
  EXPECT_EQ(sync["message"],
            "`.item()` copies a device value to the host, which capture does not allow");
  EXPECT_EQ(sync["help"], "keep the value on the device, or read it after replay()");
  ASSERT_EQ(sync["related"].size(), 2u);
  EXPECT_EQ(sync["related"][0], json({{"path", "src/train.py"},
                                      {"range", range(4, 6, 4, 25)},
                                      {"message", "capture region starts here"}}));
  EXPECT_EQ(sync["related"][1]["path"], "src/helpers.py");
  EXPECT_EQ(sync["related"][1]["range"], range(1, 5, 1, 11));
  EXPECT_EQ(sync["related"][1]["message"], "reached through this call: report()");
  EXPECT_EQ(sync["fix"]["description"], "drop the host copy");
  ASSERT_EQ(sync["fix"]["edits"].size(), 1u);
  EXPECT_EQ(sync["fix"]["edits"][0]["range"], range(6, 13, 6, 29));
  EXPECT_EQ(sync["fix"]["edits"][0]["replacement"], "loss");

  const json& branch = document["diagnostics"][2];
  EXPECT_EQ(branch["severity"], "warning");
  EXPECT_EQ(branch["help"], "");
  EXPECT_TRUE(branch["related"].is_array() && branch["related"].empty());
  EXPECT_TRUE(branch["fix"].is_null());

  ASSERT_EQ(document["notices"].size(), 2u);
  EXPECT_EQ(document["notices"][0], json({{"path", "src/broken.py"},
                                          {"line", 3},
                                          {"message", "syntax error: unexpected indent"},
                                          {"incomplete", false}}));
  EXPECT_TRUE(document["notices"][1]["line"].is_null());

  EXPECT_EQ(document["summary"], json({{"files", 5},
                                       {"errors", 2},
                                       {"warnings", 1},
                                       {"suppressed", 1},
                                       {"skipped", 0},
                                       {"incomplete", 0}}));
}

TEST(JsonOutputTest, EmptyRunIsAValidDocument) {
  json document = writtenJson(RunResult{});
  EXPECT_TRUE(document["diagnostics"].is_array() && document["diagnostics"].empty());
  EXPECT_TRUE(document["notices"].is_array() && document["notices"].empty());
  EXPECT_EQ(document["summary"]["files"], 0);
}

TEST(JsonOutputTest, InvalidUtf8InAMessageDoesNotThrow) {
  RunResult result;
  result.notices.push_back({"bad\xff.py", -1, "message \xfe"});
  EXPECT_NO_THROW(writtenJson(result));
}

}  // namespace
}  // namespace graphsafe
