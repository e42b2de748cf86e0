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
    EXPECT_NE(written.out.find("'evil\\n\\x1b[2Jname.py':"), std::string::npos) << written.out;
    EXPECT_EQ(written.status.find('\x1b'), std::string::npos) << written.status;
    EXPECT_EQ(written.status.rfind("'evil\\n\\x1b[2Jname.py':1: notice:", 0), 0u) << written.status;
  }
}

TEST(TextOutputTest, NamesThatAShellWouldReadAsCodeAreQuoted) {
  EXPECT_EQ(quotedName("src/model_v2.py"), "src/model_v2.py");
  EXPECT_EQ(quotedName("src/caf\xc3\xa9.py"), "src/caf\xc3\xa9.py");
  EXPECT_EQ(quotedName("a;touch X #.py"), "'a;touch X #.py'");
  EXPECT_EQ(quotedName("$(id).py"), "'$(id).py'");
  EXPECT_EQ(quotedName("`id`.py"), "'`id`.py'");
  EXPECT_EQ(quotedName("it's.py"), "'it'\\''s.py'");
  RunResult result = testing::sampleResult();
  auto named = std::make_shared<const SourceFile>("a;touch X #.py", "x = 1\n");
  result.diagnostics.resize(1);
  result.diagnostics[0].file = named;
  result.diagnostics[0].related = {{named, named->rangeOf(0, 1), "note"}};
  Written written = write(OutputFormat::kText, result);
  EXPECT_EQ(written.out.rfind("'a;touch X #.py':", 0), 0u) << written.out;
  EXPECT_NE(written.out.find("  'a;touch X #.py':1:1: note:"), std::string::npos) << written.out;
}

TEST(TextOutputTest, TheAnalyzedCodesControlCharactersArePrintedNotSent) {
  // An OSC 52 sequence (write the clipboard) in a string literal on the finding's line, in its
  // message and in a notice: shown as escapes, with the caret still under the range.
  const std::string osc = "\x1b]52;c;ZWNobyBoaQ==\x07";
  auto file = std::make_shared<const SourceFile>("a.py", "s = \"" + osc + "\"; t.item()\n");
  RunResult result;
  Diagnostic d;
  d.rule_id = "GS401";
  d.severity = Severity::kError;
  d.file = file;
  d.range = testing::rangeOfText(*file, "t.item()");
  d.message = "`" + osc + "` waits";
  d.help = "help " + osc;
  d.related = {{file, d.range, "note " + osc}};
  result.diagnostics = {d};
  result.notices = {{"a.py", 0, "unknown rule '" + osc + "'"}};
  for (OutputFormat format : {OutputFormat::kText, OutputFormat::kConcise}) {
    Written written = write(format, result);
    for (const std::string* text : {&written.out, &written.status}) {
      EXPECT_EQ(text->find('\x1b'), std::string::npos) << *text;
      EXPECT_EQ(text->find('\x07'), std::string::npos) << *text;
    }
    EXPECT_NE(written.out.find("\\x1b]52;c;ZWNobyBoaQ==\\x07"), std::string::npos) << written.out;
  }
  Written text = write(OutputFormat::kText, result);
  const std::string shown = "s = \"\\x1b]52;c;ZWNobyBoaQ==\\x07\"; t.item()";
  EXPECT_NE(
      text.out.find("    1 | " + shown + "\n      | " + std::string(shown.find("t.item"), ' ') +
                    "^" + std::string(7, '~') + "\n"),
      std::string::npos)
      << text.out;
}

TEST(TextOutputTest, ALongLineIsShownAsAWindowAroundTheRange) {
  // A minified file: one 175 KB line with a finding every 24 bytes. Each finding prints a
  // window of the line, so the report grows with the findings, not findings times the line.
  std::string line;
  while (line.size() < 175'000) line += "torch.cuda.synchronize();";
  auto file = std::make_shared<const SourceFile>("min.py", line + "\n");
  RunResult result;
  for (std::size_t at = 0; at + 24 <= line.size(); at += 25) {
    Diagnostic d;
    d.rule_id = "GS401";
    d.severity = Severity::kError;
    d.file = file;
    d.range = file->rangeOf(static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(at + 24));
    d.message = "`torch.cuda.synchronize()` waits for the device";
    result.diagnostics.push_back(d);
  }
  Written written = write(OutputFormat::kText, result);
  EXPECT_LT(written.out.size(), result.diagnostics.size() * 600) << result.diagnostics.size();
  // The middle finding: its window starts before it and ends after it, marked as cut.
  const std::size_t middle = result.diagnostics.size() / 2;
  RunResult one;
  one.diagnostics = {result.diagnostics[middle]};
  Written single = write(OutputFormat::kText, one);
  // 80 bytes before the range: the window starts inside the call before the one shown.
  EXPECT_NE(single.out.find("    1 | ...ze();torch.cuda.synchronize();"), std::string::npos)
      << single.out;
  const std::size_t code = single.out.find("    1 | ");
  const std::string code_line = single.out.substr(code, single.out.find('\n', code) - code);
  EXPECT_TRUE(code_line.ends_with("...")) << code_line;
  EXPECT_LT(code_line.size(), 8u + 3 + 240 + 3 + 1);
  const std::size_t caret = single.out.find("      | ");
  const std::size_t mark = single.out.find('^', caret);
  const std::size_t code_line_start = code + 8;
  const std::size_t caret_line_start = caret + 8;
  EXPECT_EQ(single.out.substr(code_line_start + (mark - caret_line_start), 24),
            "torch.cuda.synchronize()");
  // A message that quotes a huge expression is cut too.
  one.diagnostics[0].message = std::string(100'000, 'x');
  EXPECT_LT(write(OutputFormat::kText, one).out.size(), 3'000u);
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
