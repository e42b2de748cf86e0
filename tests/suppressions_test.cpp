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
  EXPECT_FALSE(parse("// NOLINTBEGIN(GS301)"));
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
