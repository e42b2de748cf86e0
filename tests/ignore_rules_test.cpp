#include "analyzer/engine/ignore_rules.h"

#include <gtest/gtest.h>

namespace graphsafe {
namespace {

using Verdict = IgnoreRules::Verdict;

Verdict verdict(std::string_view gitignore, std::string_view path, bool is_dir = false) {
  return IgnoreRules::parse(gitignore, "/base").match(path, is_dir);
}

TEST(GlobSegmentTest, Wildcards) {
  EXPECT_TRUE(globMatchSegment("*.py", "a.py"));
  EXPECT_TRUE(globMatchSegment("*.py", ".py"));
  EXPECT_FALSE(globMatchSegment("*.py", "a.pyc"));
  EXPECT_TRUE(globMatchSegment("a?c", "abc"));
  EXPECT_FALSE(globMatchSegment("a?c", "ac"));
  EXPECT_TRUE(globMatchSegment("*a*b*c*", "xxaxxbxxcxx"));
  EXPECT_FALSE(globMatchSegment("*a*b*c*", "xxaxxcxxbxx"));
  EXPECT_TRUE(globMatchSegment("test_[0-9].py", "test_7.py"));
  EXPECT_FALSE(globMatchSegment("test_[0-9].py", "test_x.py"));
  EXPECT_TRUE(globMatchSegment("test_[!0-9].py", "test_x.py"));
  EXPECT_TRUE(globMatchSegment("test_[^0-9].py", "test_x.py"));
  EXPECT_TRUE(globMatchSegment("[]x]", "]"));
  EXPECT_TRUE(globMatchSegment("[abc]", "b"));
  EXPECT_TRUE(globMatchSegment("[a", "[a"));  // unterminated class: literal '['
  EXPECT_TRUE(globMatchSegment("\\*", "*"));
  EXPECT_FALSE(globMatchSegment("\\*", "x"));
  EXPECT_TRUE(globMatchSegment("", ""));
  EXPECT_TRUE(globMatchSegment("*", ""));
}

TEST(IgnoreRulesTest, CommentsAndBlankLinesAreSkipped) {
  IgnoreRules rules = IgnoreRules::parse("# a comment\n\n   \n", "/base");
  EXPECT_TRUE(rules.empty());
  EXPECT_EQ(verdict("\\#keep\n", "#keep"), Verdict::kIgnore);
}

TEST(IgnoreRulesTest, UnanchoredPatternMatchesAtAnyDepth) {
  EXPECT_EQ(verdict("*.pyc\n", "a.pyc"), Verdict::kIgnore);
  EXPECT_EQ(verdict("*.pyc\n", "deep/er/a.pyc"), Verdict::kIgnore);
  EXPECT_EQ(verdict("generated\n", "x/generated", true), Verdict::kIgnore);
  EXPECT_EQ(verdict("generated\n", "x/generated"), Verdict::kIgnore);
  EXPECT_EQ(verdict("*.pyc\n", "a.py"), Verdict::kNone);
}

TEST(IgnoreRulesTest, LeadingOrInnerSlashAnchors) {
  EXPECT_EQ(verdict("/top.py\n", "top.py"), Verdict::kIgnore);
  EXPECT_EQ(verdict("/top.py\n", "sub/top.py"), Verdict::kNone);
  EXPECT_EQ(verdict("doc/frotz\n", "doc/frotz"), Verdict::kIgnore);
  EXPECT_EQ(verdict("doc/frotz\n", "a/doc/frotz"), Verdict::kNone);
  EXPECT_EQ(verdict("src/*.py\n", "src/a.py"), Verdict::kIgnore);
  EXPECT_EQ(verdict("src/*.py\n", "src/x/a.py"), Verdict::kNone);  // '*' stops at '/'
}

TEST(IgnoreRulesTest, TrailingSlashMatchesDirectoriesOnly) {
  EXPECT_EQ(verdict("out/\n", "out", true), Verdict::kIgnore);
  EXPECT_EQ(verdict("out/\n", "out", false), Verdict::kNone);
  EXPECT_EQ(verdict("out/\n", "a/out", true), Verdict::kIgnore);
}

TEST(IgnoreRulesTest, DoubleStar) {
  EXPECT_EQ(verdict("**/foo\n", "foo"), Verdict::kIgnore);
  EXPECT_EQ(verdict("**/foo\n", "a/b/foo"), Verdict::kIgnore);
  EXPECT_EQ(verdict("a/**/b\n", "a/b"), Verdict::kIgnore);
  EXPECT_EQ(verdict("a/**/b\n", "a/x/y/b"), Verdict::kIgnore);
  EXPECT_EQ(verdict("a/**/b\n", "x/a/b"), Verdict::kNone);
  // `abc/**` is everything inside abc, not abc itself.
  EXPECT_EQ(verdict("abc/**\n", "abc/x.py"), Verdict::kIgnore);
  EXPECT_EQ(verdict("abc/**\n", "abc/d/x.py"), Verdict::kIgnore);
  EXPECT_EQ(verdict("abc/**\n", "abc", true), Verdict::kNone);
}

TEST(IgnoreRulesTest, NegationAndLastMatchWins) {
  const char* rules = "*.py\n!keep.py\n";
  EXPECT_EQ(verdict(rules, "a.py"), Verdict::kIgnore);
  EXPECT_EQ(verdict(rules, "keep.py"), Verdict::kInclude);
  EXPECT_EQ(verdict("!keep.py\n*.py\n", "keep.py"), Verdict::kIgnore);
  EXPECT_EQ(verdict("\\!bang.py\n", "!bang.py"), Verdict::kIgnore);
}

TEST(IgnoreRulesTest, TrailingSpacesAndCarriageReturns) {
  EXPECT_EQ(verdict("a.py   \r\n", "a.py"), Verdict::kIgnore);
  EXPECT_EQ(verdict("a.py\\ \n", "a.py "), Verdict::kIgnore);
}

TEST(IgnoreRulesTest, BasenameOnlySkipsAnchoredPatterns) {
  IgnoreRules rules = IgnoreRules::parse("/a.py\nb.py\n", "/base");
  EXPECT_EQ(rules.match("a.py", false, /*basename_only=*/true), Verdict::kNone);
  EXPECT_EQ(rules.match("b.py", false, /*basename_only=*/true), Verdict::kIgnore);
}

}  // namespace
}  // namespace graphsafe
