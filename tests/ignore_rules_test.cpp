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

TEST(IgnoreRulesTest, LiteralAndWildcardPatternsKeepFileOrder) {
  // Literal patterns are looked up, wildcard ones tried: the last match still decides.
  const char* rules =
      "gen.py\n"
      "*.py\n"
      "!keep.py\n"
      "/top/exact.py\n"
      "!/top/*.py\n"
      "out/\n"
      "!out\n"
      "logs/\n";
  EXPECT_EQ(verdict(rules, "a/gen.py"), Verdict::kIgnore);
  EXPECT_EQ(verdict(rules, "keep.py"), Verdict::kInclude);
  EXPECT_EQ(verdict(rules, "deep/keep.py"), Verdict::kInclude);
  EXPECT_EQ(verdict(rules, "top/exact.py"), Verdict::kInclude);  // the wildcard after it wins
  EXPECT_EQ(verdict(rules, "top/sub/exact.py"), Verdict::kIgnore);
  EXPECT_EQ(verdict(rules, "out", true), Verdict::kInclude);
  EXPECT_EQ(verdict(rules, "logs", true), Verdict::kIgnore);
  EXPECT_EQ(verdict(rules, "logs", false), Verdict::kNone);  // a file named like the directory
  EXPECT_EQ(verdict("/top/exact.py\n", "top/exact.py"), Verdict::kIgnore);
  EXPECT_EQ(verdict("/top/exact.py\n", "x/top/exact.py"), Verdict::kNone);
  EXPECT_EQ(verdict("a/b\n!a/b\na/b\n", "a/b"), Verdict::kIgnore);
  EXPECT_EQ(verdict("a/b\n!a/b\n", "a//b"), Verdict::kInclude);
  // Patterns found through the literal text they require.
  EXPECT_EQ(verdict("*.gen12\n", "a/x.gen12"), Verdict::kIgnore);
  EXPECT_EQ(verdict("*.gen12\n", "a/x.gen123"), Verdict::kNone);
  EXPECT_EQ(verdict("gen_1_*\n", "gen_1_x.py"), Verdict::kIgnore);
  EXPECT_EQ(verdict("*gen_[0-9]x\n", "my_gen_7x"), Verdict::kIgnore);
  EXPECT_EQ(verdict("*gen_[!0-9]x\n", "my_gen_7x"), Verdict::kNone);
  EXPECT_EQ(verdict("a\\*b*\n", "a*bc"), Verdict::kIgnore);
  EXPECT_EQ(verdict("x[]y]z*\n", "x]zq"), Verdict::kIgnore);
  EXPECT_EQ(verdict("x[ab\n", "x[ab"), Verdict::kIgnore);
  EXPECT_EQ(verdict("src/**/gen_*.py\n", "src/a/b/gen_1.py"), Verdict::kIgnore);
  EXPECT_EQ(verdict("*.py\n!gen_*\n", "gen_1.py"), Verdict::kInclude);
  EXPECT_EQ(verdict("!gen_*\n*.py\n", "gen_1.py"), Verdict::kIgnore);
  IgnoreRules outside = IgnoreRules::parse("/top/exact.py\nexact.py\n", "/base");
  EXPECT_EQ(outside.match("exact.py", false, /*basename_only=*/true), Verdict::kIgnore);
}

TEST(IgnoreRulesTest, ManyWildcardPatternsMatchLikeOne) {
  std::string text;
  for (int i = 0; i < 50000; ++i) text += "*gen_" + std::to_string(i) + "_[0-9]\n";
  for (int i = 0; i < 50000; ++i) text += "*.tmp" + std::to_string(i) + "\n";
  IgnoreRules rules = IgnoreRules::parse(text, "/base");
  EXPECT_EQ(rules.match("a/my_gen_41_7", false), Verdict::kIgnore);
  EXPECT_EQ(rules.match("a/my_gen_41_x", false), Verdict::kNone);
  EXPECT_EQ(rules.match("x.tmp49999", false), Verdict::kIgnore);
  EXPECT_EQ(rules.match("x.tmp50000", false), Verdict::kNone);
  for (int i = 0; i < 10000; ++i) {
    EXPECT_EQ(rules.match("pkg/m" + std::to_string(i) + ".py", false), Verdict::kNone);
  }
}

TEST(IgnoreRulesTest, ManyLiteralPatternsMatchLikeOne) {
  std::string text;
  for (int i = 0; i < 200000; ++i) text += "generated/file_" + std::to_string(i) + ".py\n";
  text += "!generated/file_7.py\n";
  IgnoreRules rules = IgnoreRules::parse(text, "/base");
  for (int i = 0; i < 10000; ++i) {
    const std::string path = "generated/file_" + std::to_string(i * 17) + ".py";
    ASSERT_EQ(rules.match(path, false), i * 17 == 7 ? Verdict::kInclude : Verdict::kIgnore)
        << path;
  }
  EXPECT_EQ(rules.match("generated/file_7.py", false), Verdict::kInclude);
  EXPECT_EQ(rules.match("other/file_1.py", false), Verdict::kNone);
}

TEST(IgnoreRulesTest, BasenameOnlySkipsAnchoredPatterns) {
  IgnoreRules rules = IgnoreRules::parse("/a.py\nb.py\n", "/base");
  EXPECT_EQ(rules.match("a.py", false, /*basename_only=*/true), Verdict::kNone);
  EXPECT_EQ(rules.match("b.py", false, /*basename_only=*/true), Verdict::kIgnore);
}

TEST(IgnoreRulesTest, RepeatedPatternsCountOnceAndTheLastStillDecides) {
  std::string text;
  for (int i = 0; i < 100'000; ++i) text += "[a-z]*.tmp\n";
  text += "*.py\n!keep.py\n*.py\n";
  IgnoreRules rules = IgnoreRules::parse(text, "/r");
  EXPECT_FALSE(rules.tooManyGlobs());
  EXPECT_EQ(rules.globPatterns(), 1u);  // `[a-z]*.tmp` once; `*.py` is found by its `.py`
  EXPECT_EQ(rules.match("x.tmp", false), Verdict::kIgnore);
  EXPECT_EQ(rules.match("keep.py", false), Verdict::kIgnore);  // the last `*.py` wins
  EXPECT_EQ(rules.match("a.cu", false), Verdict::kNone);
}

TEST(IgnoreRulesTest, MorePatternsToGlobMatchThanTheBoundAreNotApplied) {
  // Each pattern without text a lookup can find is tried against every path: past the bound
  // the file is not applied (the walker says so), rather than costing paths times patterns.
  auto many = [](std::size_t count) {
    std::string text;
    for (std::size_t i = 0; i < count; ++i) {
      text += "[" + std::string(1, static_cast<char>('a' + i % 26)) + "-z]" +
              std::string(i / 26, '?') + "\n";
    }
    return text + "build/\n";
  };
  IgnoreRules within = IgnoreRules::parse(many(IgnoreRules::kMaxGlobPatterns), "/r");
  EXPECT_FALSE(within.tooManyGlobs());
  EXPECT_EQ(within.match("build", true), Verdict::kIgnore);
  IgnoreRules past = IgnoreRules::parse(many(IgnoreRules::kMaxGlobPatterns + 1), "/r");
  EXPECT_TRUE(past.tooManyGlobs());
  EXPECT_EQ(past.globPatterns(), IgnoreRules::kMaxGlobPatterns + 1);
  EXPECT_EQ(past.match("build", true), Verdict::kNone);
  // Literal names and paths are looked up: a generated list of files is not tried one by one;
  // neither are many patterns with text of their own (50,000 in IgnoreRulesTest above).
  std::string listed;
  for (int i = 0; i < 50'000; ++i)
    listed += "gen/file" + std::to_string(i) + ".py\nx" + std::to_string(i) + ".py\n";
  IgnoreRules lookups = IgnoreRules::parse(listed, "/r");
  EXPECT_FALSE(lookups.tooManyGlobs());
  EXPECT_EQ(lookups.globPatterns(), 1u);
  EXPECT_EQ(lookups.match("gen/file49999.py", false), Verdict::kIgnore);
  EXPECT_EQ(lookups.match("deep/x7.py", false), Verdict::kIgnore);
}

}  // namespace
}  // namespace graphsafe
