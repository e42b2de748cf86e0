// docs/rules/ is generated from the catalog. These tests fail when a page differs from what the
// renderer makes of the YAML; with GRAPHSAFE_UPDATE_DOCS=1 they rewrite the pages instead.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include "analyzer/catalog/rule_catalog.h"
#include "analyzer/catalog/rule_page.h"

namespace graphsafe {
namespace {

namespace fs = std::filesystem;

const fs::path kSourceDir = GRAPHSAFE_SOURCE_DIR;
constexpr const char* kHint =
    "\nThe pages are generated: edit the YAML under rules/, then run the tests with "
    "GRAPHSAFE_UPDATE_DOCS=1 (bash scripts/dev.sh docs).";

bool updating() {
  const char* value = std::getenv("GRAPHSAFE_UPDATE_DOCS");
  return value != nullptr && std::string_view(value) == "1";
}

std::optional<std::string> readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

// "line N: 'actual' vs 'expected'", so a failure shows where, not two whole pages.
std::string firstDifference(const std::string& actual, const std::string& expected) {
  std::istringstream a(actual);
  std::istringstream b(expected);
  std::string line_a;
  std::string line_b;
  for (int line = 1;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(a, line_a));
    const bool more_b = static_cast<bool>(std::getline(b, line_b));
    if (!more_a && !more_b) return "the line endings";
    if (!more_a || !more_b || line_a != line_b) {
      return "line " + std::to_string(line) +
             ":\n  page:     " + (more_a ? line_a : "<end of file>") +
             "\n  rendered: " + (more_b ? line_b : "<end of file>");
    }
  }
}

void checkPage(const fs::path& path, const std::string& expected) {
  const std::optional<std::string> actual = readFile(path);
  if (updating()) {
    if (actual != expected) {
      fs::create_directories(path.parent_path());
      std::ofstream(path, std::ios::binary | std::ios::trunc) << expected;
    }
    return;
  }
  ASSERT_TRUE(actual.has_value()) << path << " is missing." << kHint;
  EXPECT_TRUE(*actual == expected)
      << path << " differs from the catalog at " << firstDifference(*actual, expected) << kHint;
}

TEST(RuleDocs, EveryRulePageMatchesTheCatalog) {
  for (const RuleInfo& rule : RuleCatalog::instance().rules()) {
    checkPage(kSourceDir / ruleDocsPath(rule), renderRuleMarkdown(rule));
  }
}

TEST(RuleDocs, IndexMatchesTheCatalog) {
  checkPage(kSourceDir / "docs" / "rules" / "README.md",
            renderRuleIndexMarkdown(RuleCatalog::instance().rules()));
}

TEST(RuleDocs, EveryPageBelongsToARule) {
  std::set<std::string> expected;
  for (const RuleInfo& rule : RuleCatalog::instance().rules()) {
    expected.insert(fs::path(ruleDocsPath(rule)).filename().string());
  }
  const fs::path folder = kSourceDir / "docs" / "rules";
  if (!fs::is_directory(folder)) GTEST_SKIP() << "no docs/rules yet";
  for (const auto& entry : fs::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (name == "README.md") continue;
    EXPECT_TRUE(expected.count(name) != 0)
        << entry.path() << " is not the page of any rule: delete it, or fix its name";
  }
}

TEST(RuleDocs, PagesHaveEverySectionInOrder) {
  const char* sections[] = {
      "What it does", "Why is this bad?",       "Example",      "Use instead",
      "Fix",          "What graphsafe detects", "Known misses", "Measured on hardware",
      "Suppress"};
  for (const RuleInfo& rule : RuleCatalog::instance().rules()) {
    const std::string markdown = renderRuleMarkdown(rule);
    const std::string text = renderRulePage(rule);
    std::size_t in_markdown = 0;
    std::size_t in_text = 0;
    for (const char* section : sections) {
      const std::size_t m = markdown.find("\n## " + std::string(section) + "\n", in_markdown);
      const std::size_t t = text.find("\n" + std::string(section) + "\n", in_text);
      ASSERT_NE(m, std::string::npos) << rule.id << " markdown: " << section;
      ASSERT_NE(t, std::string::npos) << rule.id << " text: " << section;
      in_markdown = m + 1;
      in_text = t + 1;
    }
  }
}

TEST(RuleDocs, SuppressSectionShowsTheFormsOfTheRuleLanguages) {
  const RuleInfo* python_only = RuleCatalog::instance().find("GS101");
  const RuleInfo* cuda_only = RuleCatalog::instance().find("GS304");
  const RuleInfo* both = RuleCatalog::instance().find("GS401");
  ASSERT_TRUE(python_only && cuda_only && both);

  const std::string python_page = renderRuleMarkdown(*python_only);
  EXPECT_NE(python_page.find("`# graphsafe: ignore[GS101]`"), std::string::npos);
  EXPECT_NE(python_page.find("`# noqa: GS101`"), std::string::npos);
  EXPECT_NE(python_page.find("`# graphsafe: ignore-file[GS101]`"), std::string::npos);
  EXPECT_EQ(python_page.find("NOLINT"), std::string::npos);

  const std::string cuda_page = renderRulePage(*cuda_only);
  EXPECT_NE(cuda_page.find("// graphsafe: ignore[GS304]"), std::string::npos);
  EXPECT_NE(cuda_page.find("// NOLINT(GS304)"), std::string::npos);
  EXPECT_NE(cuda_page.find("// NOLINTNEXTLINE(GS304)"), std::string::npos);
  EXPECT_EQ(cuda_page.find("noqa"), std::string::npos);

  const std::string both_page = renderRuleMarkdown(*both);
  EXPECT_NE(both_page.find("`# noqa: GS401`"), std::string::npos);
  EXPECT_NE(both_page.find("`// NOLINTNEXTLINE(GS401)`"), std::string::npos);
  EXPECT_NE(both_page.find("```cuda\n"), std::string::npos);
}

TEST(RuleDocs, PagesSayWhenTheRuleIsNotImplemented) {
  RuleInfo rule = *RuleCatalog::instance().find("GS502");
  rule.implemented = false;
  EXPECT_NE(renderRuleMarkdown(rule).find("Not implemented in this version"), std::string::npos);
  EXPECT_NE(renderRulePage(rule).find("Not implemented in this version"), std::string::npos);
  rule.implemented = true;
  EXPECT_EQ(renderRuleMarkdown(rule).find("Not implemented"), std::string::npos);
  EXPECT_EQ(renderRulePage(rule).find("Not implemented"), std::string::npos);
}

TEST(RuleDocs, TerminalProseFitsEightyColumns) {
  for (const RuleInfo& rule : RuleCatalog::instance().rules()) {
    std::istringstream text(renderRulePage(rule));
    std::string line;
    while (std::getline(text, line)) {
      // Code keeps its own lines (indented four spaces); a long URL cannot be broken.
      if (line.starts_with("    ") || line.find("https://") != std::string::npos) continue;
      EXPECT_LE(line.size(), 80U) << rule.id << ": " << line;
    }
  }
}

}  // namespace
}  // namespace graphsafe
