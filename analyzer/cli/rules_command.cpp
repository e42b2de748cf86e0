#include "analyzer/cli/rules_command.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "analyzer/catalog/rule_catalog.h"
#include "analyzer/catalog/rule_page.h"
#include "analyzer/config/suggestion.h"

namespace graphsafe {

namespace {

std::string joinLanguages(const std::vector<std::string>& languages) {
  std::string text;
  for (const std::string& language : languages) {
    if (!text.empty()) text += ",";
    text += language;
  }
  return text;
}

std::string padded(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

}  // namespace

const RuleInfo* findRule(std::string_view rule) {
  const RuleCatalog& catalog = RuleCatalog::instance();
  if (const RuleInfo* info = catalog.find(rule)) return info;
  // IDs are upper case and names lower case; either is accepted in any case.
  auto recased = [&](bool upper) {
    std::string text(rule);
    for (char& c : text) {
      if (upper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
      if (!upper && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return text;
  };
  if (const RuleInfo* info = catalog.find(recased(true))) return info;
  return catalog.find(recased(false));
}

std::optional<std::string> suggestRule(std::string_view rule) {
  std::vector<std::string_view> names;
  for (const RuleInfo& info : RuleCatalog::instance().rules()) {
    names.emplace_back(info.id);
    names.emplace_back(info.name);
  }
  return closestName(rule, names);
}

bool writeRuleExplanation(std::string_view rule, std::ostream& out) {
  const RuleInfo* info = findRule(rule);
  if (info == nullptr) return false;
  out << renderRulePage(*info);
  return true;
}

void writeRuleList(std::ostream& out, bool json) {
  const auto& rules = RuleCatalog::instance().rules();
  if (json) {
    nlohmann::json list = nlohmann::json::array();
    for (const RuleInfo& rule : rules) {
      list.push_back({{"id", rule.id},
                      {"name", rule.name},
                      {"family", rule.family},
                      {"severity", severityName(rule.severity)},
                      {"languages", rule.languages},
                      {"implemented", rule.implemented},
                      {"applies_when_traced", rule.applies_when_traced},
                      {"summary", rule.summary},
                      {"url", rule.docsUrl()}});
    }
    out << list.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return;
  }
  std::size_t id_width = 2;
  std::size_t name_width = 4;
  std::size_t language_width = 9;
  for (const RuleInfo& rule : rules) {
    id_width = std::max(id_width, rule.id.size());
    name_width = std::max(name_width, rule.name.size());
    language_width = std::max(language_width, joinLanguages(rule.languages).size());
  }
  out << padded("ID", id_width) << "  " << padded("NAME", name_width) << "  "
      << padded("SEVERITY", 8) << "  " << padded("LANGUAGES", language_width) << "  "
      << padded("STATUS", 11) << "  "
      << "SUMMARY\n";
  for (const RuleInfo& rule : rules) {
    out << padded(rule.id, id_width) << "  " << padded(rule.name, name_width) << "  "
        << padded(severityName(rule.severity), 8) << "  "
        << padded(joinLanguages(rule.languages), language_width) << "  "
        << padded(rule.implemented ? "implemented" : "planned", 11) << "  " << rule.summary << "\n";
  }
}

}  // namespace graphsafe
