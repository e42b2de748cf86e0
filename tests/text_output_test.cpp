#include <gtest/gtest.h>

#include <sstream>

#include "analyzer/output/output_common.h"
#include "analyzer/output/output_format.h"
#include "tests/sample_result.h"

namespace graphsafe {
namespace {

struct Written {
  std::string out;
  std::string status;
};

Written write(OutputFormat format, const RunResult& result, OutputOptions options = {}) {
  std::ostringstream out;
  std::ostringstream status;
  writeResult(format, result, out, status, options);
  return {out.str(), status.str()};
}

TEST(TextOutputTest, Golden) {
  Written written = write(OutputFormat::kText, testing::sampleResult());
  EXPECT_EQ(written.out,
            "src/helpers.py:2:5: error[GS401] printing a tensor waits for the device\n"
            "    2 |     print(t.sum())\n"
            "      |     ^~~~~~~~~~~~~~\n"
            "\n"
            "src/train.py:6:17: error[GS401] `.item()` copies a device value to the host, which "
            "capture does not allow\n"
            "    6 | \tv = \"\xc3\xa9\xf0\x9f\x98\x80\" + str(loss.item())\n"
            "      | \t               ^~~~~~~~~~~\n"
            "  src/train.py:4:6: note: capture region starts here\n"
            "  src/helpers.py:1:5: note: reached through this call: report()\n"
            "  help: keep the value on the device, or read it after replay()\n"
            "\n"
            "src/train.py:7:8: warning[GS102] branch on `flag`, a host value that can change "
            "between replays\n"
            "    7 |     if flag:\n"
            "      |        ^~~~\n"
            "\n"
            "Found 2 errors and 1 warning in 2 files (1 suppressed).\n");
  EXPECT_EQ(written.status,
            "src/broken.py:3: notice: syntax error: unexpected indent\n"
            "data/blob.py: notice: skipped: binary file (contains NUL bytes)\n");
}

TEST(TextOutputTest, ConciseGolden) {
  Written written = write(OutputFormat::kConcise, testing::sampleResult());
  EXPECT_EQ(written.out,
            "src/helpers.py:2:5: GS401 [error] printing a tensor waits for the device\n"
            "src/train.py:6:17: GS401 [error] `.item()` copies a device value to the host, which "
            "capture does not allow\n"
            "src/train.py:7:8: GS102 [warning] branch on `flag`, a host value that can change "
            "between replays\n"
            "Found 2 errors and 1 warning in 2 files (1 suppressed).\n");
  EXPECT_NE(written.status.find("notice:"), std::string::npos);
}

TEST(TextOutputTest, CleanRunPrintsNothingOnStdout) {
  RunResult clean;
  clean.files_analyzed = 12;
  Written written = write(OutputFormat::kText, clean);
  EXPECT_EQ(written.out, "");
  EXPECT_EQ(written.status, "No CUDA-graph hazards found in 12 files.\n");

  clean.files_analyzed = 1;
  EXPECT_EQ(write(OutputFormat::kConcise, clean).status,
            "No CUDA-graph hazards found in 1 file.\n");

  OutputOptions quiet;
  quiet.quiet = true;
  EXPECT_EQ(write(OutputFormat::kText, clean, quiet).status, "");
  Written noisy = write(OutputFormat::kText, testing::sampleResult(), quiet);
  EXPECT_EQ(noisy.out.find("Found"), std::string::npos);
}

TEST(TextOutputTest, SummaryCountsOnlyWhatIsThere) {
  RunResult result = testing::sampleResult();
  result.suppressed = 0;
  result.diagnostics.pop_back();  // the warning
  EXPECT_NE(write(OutputFormat::kText, result).out.find("Found 2 errors in 2 files.\n"),
            std::string::npos);
  result.diagnostics.erase(result.diagnostics.begin());
  EXPECT_NE(write(OutputFormat::kText, result).out.find("Found 1 error in 1 file.\n"),
            std::string::npos);
}

// Files the run could not analyze (no C++ frontend) are not counted as analyzed: the summary
// names them, the first five, and counts the rest.
TEST(TextOutputTest, SummaryNamesTheFilesNotAnalyzed) {
  RunResult clean;
  clean.files_analyzed = 3;
  clean.skipped_files = {"csrc/a.cu"};
  EXPECT_EQ(write(OutputFormat::kText, clean).status,
            "No CUDA-graph hazards found in 3 files; 1 C++ file not analyzed: csrc/a.cu.\n");

  RunResult result = testing::sampleResult();
  result.skipped_files = {"a.cu", "b.cu", "c.cu", "d.cu", "e.cu", "f.cu", "g.cu"};
  EXPECT_NE(write(OutputFormat::kConcise, result)
                .out.find("(1 suppressed); 7 C++ files not analyzed: a.cu, b.cu, c.cu, d.cu, "
                          "e.cu and 2 more.\n"),
            std::string::npos)
      << write(OutputFormat::kConcise, result).out;
}

TEST(TextOutputTest, ColorsOnlyWhenAsked) {
  RunResult result = testing::sampleResult();
  EXPECT_EQ(write(OutputFormat::kText, result).out.find('\033'), std::string::npos);
  OutputOptions color;
  color.color = true;
  Written colored = write(OutputFormat::kText, result, color);
  EXPECT_NE(colored.out.find("\033[1;31merror[GS401]\033[0m"), std::string::npos);
  EXPECT_NE(colored.out.find("\033[1;33mwarning[GS102]\033[0m"), std::string::npos);
  EXPECT_EQ(colored.status.find('\033'), std::string::npos);  // stderr has its own setting
  color.status_color = true;
  EXPECT_NE(write(OutputFormat::kText, result, color).status.find("\033["), std::string::npos);
}

TEST(TextOutputTest, MultiLineRangeUnderlinesToTheEndOfItsFirstLine) {
  auto file = std::make_shared<const SourceFile>("m.py", "x = f(a,\n      b)\n");
  Diagnostic d;
  d.rule_id = "GS401";
  d.rule_name = "host-sync";
  d.file = file;
  d.range = file->rangeOf(4, 16);
  d.message = "m";
  RunResult result;
  result.diagnostics.push_back(d);
  EXPECT_NE(write(OutputFormat::kText, result).out.find("    1 | x = f(a,\n      |     ^~~~\n"),
            std::string::npos);
}

TEST(TextOutputTest, FileNamesAreShownEscaped) {
  EXPECT_EQ(printableName("src/caf\xc3\xa9.py"), "src/caf\xc3\xa9.py");
  EXPECT_EQ(printableName("a\nb.py"), "a\\nb.py");
  EXPECT_EQ(printableName("\x1b[31mred.py"), "\\x1b[31mred.py");
  EXPECT_EQ(printableName("caf\xe9.py"), "caf\\xe9.py");
  EXPECT_EQ(printableName("c1\xc2\x9b.py"), "c1\\xc2\\x9b.py");
  EXPECT_EQ(printableName("back\\slash.py"), "back\\\\slash.py");
  // One diagnostic, one line, whatever the file is named.
  RunResult result = testing::sampleResult();
  auto named = std::make_shared<const SourceFile>("evil\n\x1b[2Jname.py", "x = 1\n");
  result.diagnostics.resize(1);
  result.diagnostics[0].file = named;
  result.diagnostics[0].related.clear();
  result.notices = {{"evil\n\x1b[2Jname.py", 0, "syntax error"}};
  for (OutputFormat format : {OutputFormat::kText, OutputFormat::kConcise}) {
    Written written = write(format, result);
    EXPECT_EQ(written.out.find('\x1b'), std::string::npos) << written.out;
    EXPECT_NE(written.out.find("evil\\n\\x1b[2Jname.py:"), std::string::npos) << written.out;
    EXPECT_EQ(written.status.find('\x1b'), std::string::npos) << written.status;
    EXPECT_EQ(written.status.rfind("evil\\n\\x1b[2Jname.py:1: notice:", 0), 0u) << written.status;
  }
}

TEST(TextOutputTest, FormatNames) {
  for (const char* name : {"text", "concise", "json", "sarif", "github"}) {
    auto format = parseOutputFormat(name);
    ASSERT_TRUE(format) << name;
    EXPECT_STREQ(outputFormatName(*format), name);
  }
  EXPECT_FALSE(parseOutputFormat("xml"));
}

}  // namespace
}  // namespace graphsafe
