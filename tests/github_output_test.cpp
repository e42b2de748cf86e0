#include "analyzer/output/github_output.h"

#include <gtest/gtest.h>

#include <sstream>

#include "analyzer/output/output_format.h"
#include "tests/sample_result.h"

namespace graphsafe {
namespace {

TEST(GithubOutputTest, Escaping) {
  EXPECT_EQ(escapeWorkflowData("50%\r\n, ok: yes"), "50%25%0D%0A, ok: yes");
  EXPECT_EQ(escapeWorkflowProperty("a,b:c%d\ne\r"), "a%2Cb%3Ac%25d%0Ae%0D");
  EXPECT_EQ(escapeWorkflowProperty("plain/path.py"), "plain/path.py");
}

TEST(GithubOutputTest, Golden) {
  std::ostringstream out;
  writeGithub(testing::sampleResult(), out);
  EXPECT_EQ(out.str(),
            "::notice file=src/broken.py,line=3::syntax error: unexpected indent\n"
            "::notice file=data/blob.py::skipped: binary file (contains NUL bytes)\n"
            "::error file=src/helpers.py,line=2,col=5,endLine=2,endColumn=19,"
            "title=GS401 host-sync::printing a tensor waits for the device\n"
            "::error file=src/train.py,line=6,col=17,endLine=6,endColumn=28,"
            "title=GS401 host-sync::`.item()` copies a device value to the host, which capture "
            "does not allow%0Asrc/train.py:4:6: capture region starts here%0A"
            "src/helpers.py:1:5: reached through this call: report()%0A"
            "help: keep the value on the device, or read it after replay()\n"
            "::warning file=src/train.py,line=7,col=8,endLine=7,endColumn=12,"
            "title=GS102 frozen-branch::branch on `flag`, a host value that can change between "
            "replays\n");
}

// A finding deep in a helper chain keeps its capture site and the calls nearest the finding; the
// calls between are counted, not listed.
TEST(GithubOutputTest, LongCallPathsAreShortenedInTheMiddle) {
  RunResult result = testing::sampleResult();
  Diagnostic deep = result.diagnostics[1];
  RelatedLocation call = deep.related[1];
  deep.related.resize(1);
  for (int i = 0; i < 30; ++i) {
    call.message = "reached through this call: step" + std::to_string(i) + "()";
    deep.related.push_back(call);
  }
  result.diagnostics = {deep};
  result.notices.clear();
  std::ostringstream out;
  writeGithub(result, out);
  std::string text = out.str();
  EXPECT_NE(text.find("%0Asrc/train.py:4:6: capture region starts here%0A"), std::string::npos);
  EXPECT_NE(text.find("step0()"), std::string::npos);
  EXPECT_NE(text.find("step4()%0A... 20 calls left out ...%0A"), std::string::npos) << text;
  EXPECT_EQ(text.find("step5()"), std::string::npos);
  EXPECT_EQ(text.find("step24()"), std::string::npos);
  EXPECT_NE(text.find("step25()"), std::string::npos);
  EXPECT_NE(text.find("step29()%0Ahelp: "), std::string::npos);
  EXPECT_EQ(text.find('\n'), text.size() - 1) << "one annotation, one line";
}

TEST(GithubOutputTest, PropertiesOfOddPathsAreEscaped) {
  RunResult result;
  result.notices.push_back({"dir,with:odd%name.py", 0, "line one\nline two"});
  std::ostringstream out;
  writeGithub(result, out);
  EXPECT_EQ(out.str(), "::notice file=dir%2Cwith%3Aodd%25name.py,line=1::line one%0Aline two\n");
}

}  // namespace
}  // namespace graphsafe
