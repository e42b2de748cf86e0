// The CI formats: gitlab (Code Climate JSON), junit (XML), lintrunner and json-lines (one JSON
// object per line). Each is parsed back and its fields checked.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "analyzer/output/output_format.h"
#include "tests/sample_result.h"

namespace graphsafe {
namespace {

using nlohmann::json;

std::string write(OutputFormat format, const RunResult& result) {
  std::ostringstream out;
  std::ostringstream status;
  OutputOptions options;
  options.working_directory = "/work/project";
  writeResult(format, result, out, status, options);
  return out.str();
}

std::vector<json> jsonLines(const std::string& text) {
  std::vector<json> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    json parsed = json::parse(line, nullptr, false);
    EXPECT_FALSE(parsed.is_discarded()) << line;
    lines.push_back(parsed);
  }
  return lines;
}

TEST(CiOutputFormatsTest, Names) {
  for (const char* name : {"gitlab", "junit", "lintrunner", "json-lines"}) {
    auto format = parseOutputFormat(name);
    ASSERT_TRUE(format) << name;
    EXPECT_STREQ(outputFormatName(*format), name);
  }
}

TEST(CiOutputFormatsTest, GitlabCodeQuality) {
  json issues = json::parse(write(OutputFormat::kGitlab, testing::sampleResult()));
  ASSERT_TRUE(issues.is_array());
  ASSERT_EQ(issues.size(), 3u);
  std::set<std::string> fingerprints;
  for (const json& issue : issues) {
    // What GitLab requires of every issue.
    EXPECT_TRUE(issue["description"].is_string());
    EXPECT_TRUE(issue["check_name"].is_string());
    EXPECT_TRUE(issue["fingerprint"].is_string());
    EXPECT_TRUE(fingerprints.insert(issue["fingerprint"]).second) << "fingerprints are unique";
    std::string severity = issue["severity"];
    EXPECT_TRUE(severity == "info" || severity == "minor" || severity == "major" ||
                severity == "critical" || severity == "blocker");
    EXPECT_TRUE(issue["location"]["path"].is_string());
    EXPECT_GE(issue["location"]["lines"]["begin"].get<int>(), 1);
  }
  // Sorted as the result was given: helpers.py's print first.
  const json& sync = issues[1];
  EXPECT_EQ(sync["check_name"], "GS401");
  EXPECT_EQ(sync["severity"], "critical");
  EXPECT_EQ(sync["location"]["path"], "src/train.py");
  EXPECT_EQ(sync["location"]["lines"]["begin"], 6);
  EXPECT_EQ(sync["description"],
            "GS401 host-sync: `.item()` copies a device value to the host, which capture does "
            "not allow [src/train.py:4:6: capture region starts here; src/helpers.py:1:5: "
            "reached through this call: report()]");
  EXPECT_EQ(sync["content"]["body"],
            "`.item()` copies a device value to the host, which capture does not allow\n\n"
            "- src/train.py:4:6: capture region starts here\n"
            "- src/helpers.py:1:5: reached through this call: report()\n\n"
            "help: keep the value on the device, or read it after replay()\n");
  EXPECT_EQ(issues[0]["description"], "GS401 host-sync: printing a tensor waits for the device")
      << "no path, no brackets";
  EXPECT_EQ(issues[2]["severity"], "major");  // the warning

  // The fingerprint follows the line's content, not its number.
  RunResult shifted = testing::sampleResult();
  auto moved = std::make_shared<const SourceFile>("src/train.py",
                                                  "\n\n" + shifted.diagnostics[1].file->text());
  for (Diagnostic& diagnostic : shifted.diagnostics) {
    if (diagnostic.path() != "src/train.py") continue;
    diagnostic.range = moved->rangeOf(diagnostic.range.begin + 2, diagnostic.range.end + 2);
    diagnostic.file = moved;
  }
  json again = json::parse(write(OutputFormat::kGitlab, shifted));
  EXPECT_EQ(again[1]["fingerprint"], sync["fingerprint"]);
  EXPECT_EQ(again[1]["location"]["lines"]["begin"], 8);
}

TEST(CiOutputFormatsTest, JunitXml) {
  std::string xml = write(OutputFormat::kJunit, testing::sampleResult());
  EXPECT_TRUE(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"));
  EXPECT_NE(xml.find("<testsuites name=\"graphsafe\" tests=\"3\" failures=\"3\""),
            std::string::npos);
  EXPECT_NE(xml.find("<testcase name=\"GS401 host-sync at src/train.py:6:"), std::string::npos);
  EXPECT_NE(xml.find("<failure type=\"GS401\" message=\"`.item()` copies"), std::string::npos);
  EXPECT_NE(xml.find("note: capture region starts here"), std::string::npos);
  EXPECT_NE(xml.find("<system-err>src/broken.py: syntax error"), std::string::npos);
  // Balanced elements and no raw markup characters from messages.
  auto count = [&](const std::string& needle) {
    std::size_t n = 0;
    for (std::size_t at = xml.find(needle); at != std::string::npos; at = xml.find(needle, at + 1))
      ++n;
    return n;
  };
  EXPECT_EQ(count("<testcase "), 3u);
  EXPECT_EQ(count("</testcase>"), 3u);
  EXPECT_EQ(count("<failure "), count("</failure>"));

  RunResult hostile = testing::sampleResult();
  hostile.diagnostics[0].message = "a <b> & \"c\" \x01 \xff";
  std::string escaped = write(OutputFormat::kJunit, hostile);
  EXPECT_NE(escaped.find("a &lt;b&gt; &amp; &quot;c&quot; \xEF\xBF\xBD \xEF\xBF\xBD"),
            std::string::npos);

  std::string clean = write(OutputFormat::kJunit, RunResult{});
  EXPECT_NE(clean.find("tests=\"1\" failures=\"0\""), std::string::npos);
  EXPECT_NE(clean.find("<testcase name=\"No CUDA-graph hazards found"), std::string::npos);
}

TEST(CiOutputFormatsTest, LintrunnerMessages) {
  std::vector<json> lines = jsonLines(write(OutputFormat::kLintrunner, testing::sampleResult()));
  ASSERT_EQ(lines.size(), 5u);  // two notices, three findings
  for (const json& message : lines) {
    for (const char* field : {"path", "line", "char", "code", "severity", "name", "original",
                              "replacement", "description"}) {
      EXPECT_TRUE(message.contains(field)) << field << " in " << message.dump();
    }
    EXPECT_EQ(message["code"], "GRAPHSAFE");
    std::string severity = message["severity"];
    EXPECT_TRUE(severity == "error" || severity == "warning" || severity == "advice" ||
                severity == "disabled");
  }
  EXPECT_EQ(lines[0]["severity"], "advice");
  const json& sync = lines[3];
  EXPECT_EQ(sync["path"], "src/train.py");
  EXPECT_EQ(sync["name"], "GS401");
  EXPECT_EQ(sync["severity"], "error");
  EXPECT_EQ(sync["line"], 6);
  EXPECT_EQ(sync["char"], 17);  // 1-based code points: `\tv = "` is 6, two characters, `" + str(` is 7
  // The fix as a whole-file patch.
  std::string original = sync["original"];
  std::string replacement = sync["replacement"];
  EXPECT_NE(original.find("str(loss.item())"), std::string::npos);
  EXPECT_EQ(replacement.find("str(loss.item())"), std::string::npos);
  EXPECT_NE(replacement.find("\" + loss\n"), std::string::npos);
  EXPECT_TRUE(lines[4]["original"].is_null());
  EXPECT_EQ(lines[4]["severity"], "warning");
}

TEST(CiOutputFormatsTest, JsonLines) {
  std::vector<json> lines = jsonLines(write(OutputFormat::kJsonLines, testing::sampleResult()));
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0]["kind"], "diagnostic");
  EXPECT_EQ(lines[1]["rule"], "GS401");
  EXPECT_EQ(lines[1]["path"], "src/train.py");
  EXPECT_EQ(lines[1]["range"]["start"]["line"], 6);
  EXPECT_EQ(lines[1]["related"].size(), 2u);
  EXPECT_EQ(lines[3]["kind"], "notice");
  EXPECT_EQ(lines[3]["path"], "src/broken.py");
  EXPECT_EQ(lines[3]["line"], 3);
  EXPECT_TRUE(write(OutputFormat::kJsonLines, RunResult{}).empty());
}

}  // namespace
}  // namespace graphsafe
