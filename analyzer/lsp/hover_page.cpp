#include "analyzer/lsp/hover_page.h"

#include <vector>

#include "analyzer/catalog/rule_page.h"

namespace graphsafe::lsp {

std::string resolveLink(std::string_view page_url, std::string_view target) {
  if (target.starts_with('#') || target.find("://") != std::string_view::npos ||
      target.starts_with("mailto:")) {
    return std::string(target);
  }
  std::string_view base = page_url.substr(0, page_url.rfind('/'));  // the page's directory
  std::size_t scheme_end = base.find("://");
  std::size_t root_end =
      scheme_end == std::string_view::npos ? 0 : base.find('/', scheme_end + 3);
  if (root_end == std::string_view::npos) root_end = base.size();
  std::vector<std::string_view> segments;
  for (std::size_t at = root_end; at < base.size();) {
    std::size_t next = base.find('/', at + 1);
    if (next == std::string_view::npos) next = base.size();
    segments.push_back(base.substr(at + 1, next - at - 1));
    at = next;
  }
  std::string_view rest = target;
  while (true) {
    if (rest.starts_with("../")) {
      if (!segments.empty()) segments.pop_back();
      rest.remove_prefix(3);
    } else if (rest.starts_with("./")) {
      rest.remove_prefix(2);
    } else {
      break;
    }
  }
  std::string url(base.substr(0, root_end));
  for (std::string_view segment : segments) url += "/" + std::string(segment);
  return url + "/" + std::string(rest);
}

std::string hoverMarkdown(const RuleInfo& rule) {
  std::string page = renderRuleMarkdown(rule);
  // The generated-file note opens the page: it is for the repository's readers, not a hover's.
  if (page.starts_with("<!--")) {
    std::size_t end = page.find("-->");
    std::size_t line_end = end == std::string::npos ? std::string::npos : page.find('\n', end);
    page = line_end == std::string::npos ? std::string() : page.substr(line_end + 1);
    while (page.starts_with("\n")) page.erase(0, 1);
  }
  std::string url = rule.docsUrl();
  std::string out;
  for (std::size_t at = 0; at < page.size();) {
    std::size_t link = page.find("](", at);
    if (link == std::string::npos) {
      out += page.substr(at);
      break;
    }
    std::size_t close = page.find(')', link + 2);
    if (close == std::string::npos) {
      out += page.substr(at);
      break;
    }
    out += page.substr(at, link + 2 - at);
    out += resolveLink(url, std::string_view(page).substr(link + 2, close - link - 2));
    out += ')';
    at = close + 1;
  }
  return out;
}

}  // namespace graphsafe::lsp
