// The lexical indentation depth the Python frontend checks against the parser's limit: blocks
// count, while lines inside brackets and strings, continuations, blank lines and comments do not.
#include "frontends/python/indent_depth.h"

#include <gtest/gtest.h>

#include <string>

namespace graphsafe::python {
namespace {

std::string nested(std::size_t depth, std::string_view step = " ") {
  std::string text;
  std::string indent;
  for (std::size_t level = 0; level < depth; ++level) {
    text += indent + "if x:\n";
    indent += step;
  }
  return text + indent + "pass\n";
}

TEST(IndentDepthTest, CountsOpenBlocks) {
  EXPECT_EQ(maxIndentDepth(""), 0u);
  EXPECT_EQ(maxIndentDepth("x = 1\n"), 0u);
  EXPECT_EQ(maxIndentDepth(nested(3)), 3u);
  EXPECT_EQ(maxIndentDepth(nested(3, "\t")), 3u);
  EXPECT_EQ(maxIndentDepth(nested(3) + nested(2)), 3u);  // dedents close levels
  EXPECT_EQ(maxIndentDepth("if x:\r    pass\r"), 1u);    // old Mac line ends
}

TEST(IndentDepthTest, IgnoresWhatIsNotALogicalLineStart) {
  EXPECT_EQ(maxIndentDepth("x = (1,\n        2,\n            3)\n"), 0u);
  EXPECT_EQ(maxIndentDepth("x = '''\n        text\n'''\n"), 0u);
  EXPECT_EQ(maxIndentDepth("x = 1 + \\\n        2\n"), 0u);
  EXPECT_EQ(maxIndentDepth("if x:\n    pass\n        # comment\n\n            \n"), 1u);
  EXPECT_EQ(maxIndentDepth("s = ')'\nif x:\n    pass\n"), 1u);
}

TEST(IndentDepthTest, OnlyDepthsPastTheParsersLimitAreReported) {
  EXPECT_EQ(indentDepthPastParserLimit(nested(kParserIndentLimit)), 0u);
  EXPECT_EQ(indentDepthPastParserLimit(nested(kParserIndentLimit + 1)), kParserIndentLimit + 1);
  EXPECT_EQ(indentDepthPastParserLimit(nested(600, "    ")), 600u);
  // Deep indentation that is one block, not many.
  EXPECT_EQ(indentDepthPastParserLimit("if x:\n" + std::string(2000, ' ') + "pass\n"), 0u);
}

}  // namespace
}  // namespace graphsafe::python
