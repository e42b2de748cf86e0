#include "analyzer/engine/suppressions.h"

#include <gtest/gtest.h>

namespace graphsafe {
namespace {

using Codes = std::vector<std::string>;

std::optional<ParsedSuppression> parse(std::string_view comment) {
  ParsedSuppression parsed;
  if (!parseSuppressionComment(comment, parsed)) return std::nullopt;
  return parsed;
}

Codes codesOf(std::string_view comment) {
  auto parsed = parse(comment);
  return parsed ? parsed->codes : Codes{"<not a suppression>"};
}

TEST(SuppressionCommentTest, OwnForms) {
  EXPECT_EQ(codesOf("# graphsafe: ignore[GS401]"), Codes{"GS401"});
  EXPECT_EQ(codesOf("# graphsafe:ignore[GS401,GS101]"), (Codes{"GS401", "GS101"}));
  EXPECT_EQ(codesOf("#graphsafe: ignore[ GS401 , GS4 ]"), (Codes{"GS401", "GS4"}));
  EXPECT_EQ(codesOf("# graphsafe: ignore[GS401 GS101] because warm-up"), (Codes{"GS401", "GS101"}));
  EXPECT_EQ(codesOf("# graphsafe: ignore"), Codes{});  // every rule
  EXPECT_EQ(codesOf("// graphsafe: ignore[GS301]"), Codes{"GS301"});
  EXPECT_EQ(codesOf("/* graphsafe: ignore[GS301] */"), Codes{"GS301"});
  EXPECT_EQ(codesOf("# some words # graphsafe: ignore[GS401]"), Codes{"GS401"});

  auto file_level = parse("# graphsafe: ignore-file[GS401]");
  ASSERT_TRUE(file_level);
  EXPECT_TRUE(file_level->whole_file);
  EXPECT_EQ(file_level->codes, Codes{"GS401"});
  auto whole = parse("# graphsafe: ignore-file");
  ASSERT_TRUE(whole);
  EXPECT_TRUE(whole->whole_file);
  EXPECT_TRUE(whole->codes.empty());
  EXPECT_FALSE(parse("# graphsafe: ignore[GS401]")->whole_file);
}

TEST(SuppressionCommentTest, NotOurs) {
  EXPECT_FALSE(parse("# just a comment"));
  EXPECT_FALSE(parse("# graphsafe: ignored here"));
  EXPECT_FALSE(parse("# graphsafe is great"));
  EXPECT_FALSE(parse("# noqa"));
  EXPECT_FALSE(parse("# NOQA"));
  EXPECT_FALSE(parse("# noqa: E501"));
  EXPECT_FALSE(parse("# noqa:E501,F401"));
  EXPECT_FALSE(parse("# ruff: noqa"));
  EXPECT_FALSE(parse("// NOLINT"));
  EXPECT_FALSE(parse("// NOLINT(bugprone-use-after-move)"));
  EXPECT_FALSE(parse("// NOLINTNEXTLINE"));
  EXPECT_FALSE(parse("// NOLINTBEGIN"));  // bare: clang-tidy's, as bare NOLINT
  EXPECT_FALSE(parse("// NOLINTEND"));
  EXPECT_FALSE(parse("// NOLINTBEGIN(bugprone-use-after-move)"));
}

TEST(SuppressionCommentTest, Noqa) {
  EXPECT_EQ(codesOf("# noqa: GS401"), Codes{"GS401"});
  EXPECT_EQ(codesOf("# noqa:GS401"), Codes{"GS401"});
  EXPECT_EQ(codesOf("# NOQA: GS401"), Codes{"GS401"});
  EXPECT_EQ(codesOf("# noqa: E501, GS401"), Codes{"GS401"});
  EXPECT_EQ(codesOf("# noqa: E501 GS401 GS1"), (Codes{"GS401", "GS1"}));
  EXPECT_EQ(codesOf("# type: ignore  # noqa: GS401"), Codes{"GS401"});
  // Codes end at the first word that is not a code.
  EXPECT_FALSE(parse("# noqa: E501 see GS401"));
  // Codes are case-sensitive.
  EXPECT_FALSE(parse("# noqa: gs401"));
}

TEST(SuppressionCommentTest, Nolint) {
  auto same_line = parse("// NOLINT(GS301)");
  ASSERT_TRUE(same_line);
  EXPECT_FALSE(same_line->next_line);
  EXPECT_EQ(same_line->codes, Codes{"GS301"});

  auto next_line = parse("// NOLINTNEXTLINE(GS301, bugprone-use-after-move)");
  ASSERT_TRUE(next_line);
  EXPECT_TRUE(next_line->next_line);
  EXPECT_EQ(next_line->codes, Codes{"GS301"});

  EXPECT_EQ(codesOf("// NOLINT(GS4*)"), Codes{"GS4"});

  auto begin = parse("// NOLINTBEGIN(GS301, readability-*)");
  ASSERT_TRUE(begin);
  EXPECT_TRUE(begin->begin);
  EXPECT_FALSE(begin->end || begin->next_line);
  EXPECT_EQ(begin->codes, Codes{"GS301"});
  auto end = parse("// NOLINTEND(GS301)");
  ASSERT_TRUE(end);
  EXPECT_TRUE(end->end);
  EXPECT_FALSE(end->begin);
  EXPECT_EQ(codesOf("// NOLINT(readability-*,GS301,GS401)"), (Codes{"GS301", "GS401"}));
}

struct Parsed {
  Suppressions suppressions;
  std::vector<Notice> notices;
};

Parsed parseFile(std::string path, std::vector<SourceComment> comments) {
  FileModel file;
  file.source = std::make_shared<const SourceFile>(std::move(path), "");
  file.comments = std::move(comments);
  Parsed parsed;
  parsed.suppressions = Suppressions::parse(file, parsed.notices);
  return parsed;
}

TEST(SuppressionsTest, PerLineAndPrefixes) {
  Parsed parsed = parseFile("a.py", {{3, 10, "# graphsafe: ignore[GS401]"},
                                     {5, 10, "# noqa: GS4"},
                                     {7, 10, "# graphsafe: ignore"},
                                     {9, 10, "# noqa"},
                                     {11, 10, "# noqa: E501, GS101"}});
  const Suppressions& s = parsed.suppressions;
  EXPECT_TRUE(parsed.notices.empty());
  EXPECT_TRUE(s.suppresses("GS401", 3));
  EXPECT_FALSE(s.suppresses("GS101", 3));
  EXPECT_FALSE(s.suppresses("GS401", 4));  // per line: not the next one
  EXPECT_TRUE(s.suppresses("GS401", 5));
  EXPECT_TRUE(s.suppresses("GS402", 5));
  EXPECT_FALSE(s.suppresses("GS101", 5));
  EXPECT_TRUE(s.suppresses("GS101", 7));
  EXPECT_TRUE(s.suppresses("GS203", 7));
  EXPECT_FALSE(s.suppresses("GS401", 9));  // bare noqa is another tool's
  EXPECT_TRUE(s.suppresses("GS101", 11));
  EXPECT_FALSE(s.suppresses("GS401", 11));
}

TEST(SuppressionsTest, NextLineAndWholeFile) {
  Parsed next =
      parseFile("k.cu", {{2, 0, "// NOLINTNEXTLINE(GS301)"}, {6, 20, "// NOLINT(GS401)"}});
  EXPECT_FALSE(next.suppressions.suppresses("GS301", 2));
  EXPECT_TRUE(next.suppressions.suppresses("GS301", 3));
  EXPECT_TRUE(next.suppressions.suppresses("GS401", 6));

  Parsed file = parseFile("a.py", {{40, 0, "# graphsafe: ignore-file[GS2]"}});
  EXPECT_TRUE(file.suppressions.suppresses("GS203", 0));
  EXPECT_TRUE(file.suppressions.suppresses("GS201", 1000));
  EXPECT_FALSE(file.suppressions.suppresses("GS401", 0));

  Parsed everything = parseFile("a.py", {{0, 0, "# graphsafe: ignore-file"}});
  EXPECT_TRUE(everything.suppressions.suppresses("GS401", 12));
}

TEST(SuppressionsTest, UnknownRulesBecomeNotices) {
  Parsed parsed = parseFile("src/m.py", {{4, 8, "# graphsafe: ignore[GS999, GS401]"},
                                         {6, 8, "# noqa: GS9"},
                                         {8, 8, "# graphsafe: ignore[gs401]"},
                                         {9, 8, "# graphsafe: ignore[HOST]"}});
  ASSERT_EQ(parsed.notices.size(), 4u);
  EXPECT_EQ(parsed.notices[0].path, "src/m.py");
  EXPECT_EQ(parsed.notices[0].line, 4);
  EXPECT_EQ(parsed.notices[0].message, "unknown rule 'GS999' in suppression comment");
  EXPECT_EQ(parsed.notices[1].line, 6);
  EXPECT_EQ(parsed.notices[1].message, "unknown rule 'GS9' in suppression comment");
  EXPECT_EQ(parsed.notices[2].message, "unknown rule 'gs401' in suppression comment");
  EXPECT_EQ(parsed.notices[3].message, "unknown rule 'HOST' in suppression comment");
  // The known code still works; a comment with only unknown codes suppresses nothing.
  EXPECT_TRUE(parsed.suppressions.suppresses("GS401", 4));
  EXPECT_FALSE(parsed.suppressions.suppresses("GS101", 4));
  EXPECT_FALSE(parsed.suppressions.suppresses("GS401", 6));
  EXPECT_FALSE(parsed.suppressions.suppresses("GS401", 8));
  EXPECT_FALSE(parsed.suppressions.suppresses("GS401", 9));
}

}  // namespace
}  // namespace graphsafe

namespace graphsafe {
namespace {

TEST(SuppressionsTest, NolintBeginEndSuppressesTheLinesBetween) {
  Parsed parsed = parseFile("k.cu", {{2, 2, "// NOLINTBEGIN(GS301)"},
                                     {4, 2, "// NOLINTBEGIN(GS4)"},
                                     {6, 2, "// NOLINTEND(GS4)"},
                                     {9, 2, "// NOLINTEND(GS301)"}});
  const Suppressions& s = parsed.suppressions;
  EXPECT_TRUE(parsed.notices.empty());
  EXPECT_FALSE(s.suppresses("GS301", 1));
  EXPECT_TRUE(s.suppresses("GS301", 2));
  EXPECT_TRUE(s.suppresses("GS301", 5));
  EXPECT_TRUE(s.suppresses("GS301", 9));
  EXPECT_FALSE(s.suppresses("GS301", 10));
  EXPECT_TRUE(s.suppresses("GS401", 5));  // nested: the inner range
  EXPECT_FALSE(s.suppresses("GS401", 3));
  EXPECT_FALSE(s.suppresses("GS401", 7));
  EXPECT_FALSE(s.suppresses("GS101", 5));
}

// As clang-tidy: a NOLINTEND with no NOLINTBEGIN of the same rules before it, and a NOLINTBEGIN
// never closed, are notices naming their line; an unclosed NOLINTBEGIN suppresses nothing.
TEST(SuppressionsTest, UnmatchedNolintBeginOrEndIsANotice) {
  Parsed parsed = parseFile("k.cu", {{1, 0, "// NOLINTEND(GS301)"},
                                     {3, 0, "// NOLINTBEGIN(GS401)"},
                                     {5, 0, "// NOLINTEND(GS301)"},
                                     {8, 0, "// NOLINTBEGIN(GS302)"}});
  ASSERT_EQ(parsed.notices.size(), 4u);
  EXPECT_EQ(parsed.notices[0].line, 1);
  EXPECT_EQ(parsed.notices[0].path, "k.cu");
  EXPECT_NE(parsed.notices[0].message.find("unmatched NOLINTEND"), std::string::npos);
  EXPECT_EQ(parsed.notices[1].line, 5);
  EXPECT_NE(parsed.notices[1].message.find("unmatched NOLINTEND"), std::string::npos);
  std::vector<std::int32_t> begin_lines = {parsed.notices[2].line, parsed.notices[3].line};
  EXPECT_EQ(begin_lines, (std::vector<std::int32_t>{3, 8}));
  EXPECT_NE(parsed.notices[2].message.find("unmatched NOLINTBEGIN"), std::string::npos);
  EXPECT_FALSE(parsed.suppressions.suppresses("GS401", 4));
  EXPECT_FALSE(parsed.suppressions.suppresses("GS302", 9));
}

TEST(SuppressionsTest, UnusedCodesAreTheOnesNoFindingUsed) {
  Parsed parsed = parseFile("a.py", {{3, 10, "# graphsafe: ignore[GS401, GS101]"},
                                     {5, 12, "# noqa: GS2"},
                                     {7, 4, "# graphsafe: ignore"},
                                     {8, 4, "# graphsafe: ignore"},
                                     {9, 0, "# NOLINTBEGIN(GS3)"},
                                     {12, 0, "# NOLINTEND(GS3)"}});
  Suppressions& s = parsed.suppressions;
  EXPECT_TRUE(s.suppressAndMark("GS401", 3));
  EXPECT_TRUE(s.suppressAndMark("GS106", 7));
  EXPECT_TRUE(s.suppressAndMark("GS301", 11));
  EXPECT_FALSE(s.suppressAndMark("GS401", 4));
  auto every_rule_ran = [](std::string_view) { return true; };
  std::vector<std::string> unused;
  for (const Suppressions::Unused& u : s.unused(every_rule_ran)) {
    unused.push_back(std::to_string(u.line) + ":" + std::to_string(u.column) + " " + u.code);
  }
  EXPECT_EQ(unused, (Codes{"3:10 GS101", "5:12 GS2", "8:4 "}));
  // A code whose rules did not run is never unused: a run with them may need it.
  auto only_gs1 = [](std::string_view code) { return code.starts_with("GS1"); };
  unused.clear();
  for (const Suppressions::Unused& u : s.unused(only_gs1)) unused.push_back(u.code);
  EXPECT_EQ(unused, Codes{"GS101"});
}

}  // namespace
}  // namespace graphsafe
