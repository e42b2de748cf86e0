#pragma once

// A rule's page as an editor's hover shows it: the Markdown page of docs/rules/ without the
// note that it was generated, and with its relative links (the family table, the probe cases)
// made absolute, since a hover has no directory to resolve them against.

#include <string>
#include <string_view>

#include "analyzer/catalog/rule_catalog.h"

namespace graphsafe::lsp {

std::string hoverMarkdown(const RuleInfo& rule);

// `target` of a Markdown link resolved against the URL of the page holding it; absolute URLs
// and in-page anchors are returned as they are.
std::string resolveLink(std::string_view page_url, std::string_view target);

}  // namespace graphsafe::lsp
