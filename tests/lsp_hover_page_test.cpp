// The rule page a hover shows: no generated-file note, and links an editor can open.
#include "analyzer/lsp/hover_page.h"

#include <gtest/gtest.h>

#include <regex>

namespace graphsafe::lsp {
namespace {

TEST(HoverPageTest, RelativeLinksResolveAgainstThePage) {
  const char* page = "https://github.com/graphsafe/graphsafe/blob/main/docs/rules/GS401-host-sync.md";
  EXPECT_EQ(resolveLink(page, "README.md#refused-by-capture"),
            "https://github.com/graphsafe/graphsafe/blob/main/docs/rules/README.md#refused-by-capture");
  EXPECT_EQ(resolveLink(page, "../../runtime-probe/cases/python/x/bug.py"),
            "https://github.com/graphsafe/graphsafe/blob/main/runtime-probe/cases/python/x/bug.py");
  EXPECT_EQ(resolveLink(page, "./GS402-pageable-copy.md"),
            "https://github.com/graphsafe/graphsafe/blob/main/docs/rules/GS402-pageable-copy.md");
  EXPECT_EQ(resolveLink(page, "https://pytorch.org/docs"), "https://pytorch.org/docs");
  EXPECT_EQ(resolveLink(page, "#fix"), "#fix");
}

TEST(HoverPageTest, EveryRulePageHasNoBannerAndOnlyAbsoluteLinks) {
  for (const RuleInfo& rule : RuleCatalog::instance().rules()) {
    std::string text = hoverMarkdown(rule);
    EXPECT_EQ(text.find("<!--"), std::string::npos) << rule.id;
    EXPECT_NE(text.find(rule.id), std::string::npos) << rule.id;
    static const std::regex link(R"(\]\(([^)]*)\))");
    bool any = false;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), link);
         it != std::sregex_iterator(); ++it) {
      std::string target = (*it)[1];
      any = true;
      EXPECT_TRUE(target.starts_with("https://") || target.starts_with("#"))
          << rule.id << ": " << target;
    }
    EXPECT_TRUE(any) << rule.id << ": the page has links to resolve";
  }
}

}  // namespace
}  // namespace graphsafe::lsp
