#include "analyzer/catalog/rule_catalog.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <set>
#include <stdexcept>

#include "analyzer/catalog/embedded_catalog.h"
#include "analyzer/catalog/rule_family.h"
#include "analyzer/engine/check.h"

namespace graphsafe {

namespace {

// The one place the rule pages' public address is spelled out.
constexpr std::string_view kDocsBaseUrl =
    "https://github.com/graphsafe/graphsafe/blob/main/docs/rules/";

// Every key is required: a rule without a bad example, a fix or a probe case is not finished.
constexpr std::array<std::string_view, 15> kKeys = {
    "id",  "name", "family", "severity", "languages", "traced", "summary", "rationale",
    "bad", "good", "fix",    "detects",  "misses",    "probe",  "observed"};

constexpr std::array<std::string_view, 2> kLanguages = {"python", "cuda"};

std::string_view probeExtension(std::string_view language) {
  return language == "python" ? ".py" : ".cu";
}

bool isLanguage(std::string_view language) {
  return std::find(kLanguages.begin(), kLanguages.end(), language) != kLanguages.end();
}

std::string_view trimmed(std::string_view text) {
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

// Code keeps its leading indentation; only the blank lines around it go.
std::string_view trimmedCode(std::string_view code) {
  while (!code.empty() && (code.front() == '\n' || code.front() == '\r')) code.remove_prefix(1);
  while (!code.empty() && std::isspace(static_cast<unsigned char>(code.back())) != 0) {
    code.remove_suffix(1);
  }
  return code;
}

bool isKebabName(std::string_view name) {
  if (name.empty() || name.front() == '-' || name.back() == '-') return false;
  char previous = 0;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    if (!ok || (c == '-' && previous == '-')) return false;
    previous = c;
  }
  return true;
}

bool isRuleId(std::string_view id) {
  return id.size() == 5 && id.starts_with("GS") &&
         std::all_of(id.begin() + 2, id.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string joined(std::span<const std::string_view> words) {
  std::string out;
  for (std::string_view word : words) {
    if (!out.empty()) out += ", ";
    out += word;
  }
  return out;
}

// One catalog file's top-level mapping. Every error names the file, the 1-based line and column
// of the offending node (yaml-cpp's Mark), and the key.
class EntryReader {
 public:
  EntryReader(std::string file, const YAML::Node& root) : file_(std::move(file)) {
    if (!root.IsMap()) fail(root.Mark(), "catalog entry", "expected a mapping of catalog keys");
    root_mark_ = root.Mark();
    for (const auto& pair : root) {
      const YAML::Node& key = pair.first;
      if (!key.IsScalar()) fail(key.Mark(), "catalog entry", "keys must be plain names");
      const std::string& name = key.Scalar();
      if (std::find(kKeys.begin(), kKeys.end(), name) == kKeys.end()) {
        fail(key.Mark(), name, "unknown key (known keys: " + joined(kKeys) + ")");
      }
      if (fields_.count(name) != 0) fail(key.Mark(), name, "key appears twice");
      fields_.emplace(name, Field{key.Mark(), pair.second});
    }
    for (std::string_view key : kKeys) {
      if (fields_.find(key) == fields_.end()) {
        fail(root_mark_, key, "missing required key");
      }
    }
  }

  [[noreturn]] void fail(const YAML::Mark& mark, std::string_view key,
                         std::string_view problem) const {
    const int line = mark.is_null() ? 1 : mark.line + 1;
    const int column = mark.is_null() ? 1 : mark.column + 1;
    throw std::runtime_error(fmt::format("{}:{}:{}: {}: {}", file_, line, column, key, problem));
  }

  const YAML::Node& node(std::string_view key) const { return fields_.find(key)->second.value; }
  YAML::Mark mark(std::string_view key) const {
    const YAML::Node& value = node(key);
    return value.IsNull() ? fields_.find(key)->second.key_mark : value.Mark();
  }

  // A non-empty string; `one_line` for IDs, names and the one-line texts.
  std::string text(std::string_view key, bool one_line) const {
    const YAML::Node& value = node(key);
    if (!value.IsScalar()) fail(mark(key), key, "expected text");
    const std::string_view content = trimmed(value.Scalar());
    if (content.empty()) fail(mark(key), key, "must not be empty");
    if (one_line && content.find('\n') != std::string_view::npos) {
      fail(mark(key), key, "must be a single line");
    }
    return std::string(content);
  }

  bool flag(std::string_view key) const {
    const YAML::Node& value = node(key);
    if (value.IsScalar() && (value.Scalar() == "true" || value.Scalar() == "false")) {
      return value.Scalar() == "true";
    }
    fail(mark(key), key, "expected true or false");
  }

  std::vector<std::string> languages() const {
    const YAML::Node& value = node("languages");
    if (!value.IsSequence() || value.size() == 0) {
      fail(mark("languages"), "languages", "expected a non-empty list such as [python, cuda]");
    }
    std::vector<std::string> out;
    for (const auto& item : value) {
      if (!item.IsScalar() || !isLanguage(item.Scalar())) {
        fail(item.Mark(), "languages",
             "unknown language '" + (item.IsScalar() ? item.Scalar() : std::string("?")) +
                 "' (expected: " + joined(kLanguages) + ")");
      }
      if (std::find(out.begin(), out.end(), item.Scalar()) != out.end()) {
        fail(item.Mark(), "languages", "'" + item.Scalar() + "' is listed twice");
      }
      out.push_back(item.Scalar());
    }
    return out;
  }

  // `bad: |` (the rule's first language) or `bad: {python: ..., cuda: ...}`.
  std::vector<CodeExample> examples(std::string_view key,
                                    const std::vector<std::string>& languages) const {
    const YAML::Node& value = node(key);
    std::vector<CodeExample> out;
    const auto code = [&](const YAML::Node& block) {
      if (!block.IsScalar() || trimmedCode(block.Scalar()).empty()) {
        fail(block.Mark(), key, "expected a non-empty code block");
      }
      return std::string(trimmedCode(block.Scalar()));
    };
    if (value.IsScalar()) {
      out.push_back({languages.front(), code(value)});
      return out;
    }
    if (!value.IsMap() || value.size() == 0) {
      fail(mark(key), key, "expected a code block, or a mapping of language to code block");
    }
    for (const auto& pair : value) {
      const std::string language = pair.first.IsScalar() ? pair.first.Scalar() : "?";
      if (std::find(languages.begin(), languages.end(), language) == languages.end()) {
        fail(pair.first.Mark(), key, "'" + language + "' is not one of the rule's languages");
      }
      for (const CodeExample& seen : out) {
        if (seen.language == language) {
          fail(pair.first.Mark(), key, "'" + language + "' appears twice");
        }
      }
      out.push_back({language, code(pair.second)});
    }
    // Language order of the rule, so the primary language's example comes first.
    std::stable_sort(out.begin(), out.end(), [&](const CodeExample& a, const CodeExample& b) {
      return std::find(languages.begin(), languages.end(), a.language) <
             std::find(languages.begin(), languages.end(), b.language);
    });
    return out;
  }

  // runtime-probe/cases/<python|cuda>/<ID>-<name>/{bug*,fix*}.{py,cu}, relative to cases/.
  std::vector<ProbeCase> probeCases(const RuleInfo& rule) const {
    const YAML::Node& value = node("probe");
    if (!value.IsSequence() || value.size() == 0) {
      fail(mark("probe"), "probe", "expected a non-empty list of probe case paths");
    }
    std::vector<ProbeCase> out;
    const std::string folder = rule.id + "-" + rule.name;
    for (const auto& item : value) {
      if (!item.IsScalar()) fail(item.Mark(), "probe", "expected a path");
      const std::string& path = item.Scalar();
      const std::size_t first = path.find('/');
      const std::size_t second = first == std::string::npos ? first : path.find('/', first + 1);
      if (second == std::string::npos || path.find('/', second + 1) != std::string::npos) {
        fail(item.Mark(), "probe",
             "'" + path + "' is not <language>/" + folder + "/<bug|fix>.<py|cu>");
      }
      const std::string language = path.substr(0, first);
      const std::string directory = path.substr(first + 1, second - first - 1);
      const std::string file = path.substr(second + 1);
      if (std::find(rule.languages.begin(), rule.languages.end(), language) ==
          rule.languages.end()) {
        fail(item.Mark(), "probe",
             "'" + path + "': '" + language + "' is not one of the rule's languages");
      }
      if (directory != folder) {
        fail(item.Mark(), "probe", "'" + path + "': the case folder must be " + folder);
      }
      const std::string_view extension = probeExtension(language);
      const bool stem_ok = file.starts_with("bug") || file.starts_with("fix");
      const bool chars_ok = std::all_of(file.begin(), file.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.';
      });
      if (!stem_ok || !chars_ok || !file.ends_with(extension) ||
          file.find('.') != file.size() - extension.size()) {
        fail(item.Mark(), "probe",
             "'" + path + "': the file must be bug*" + std::string(extension) + " or fix*" +
                 std::string(extension));
      }
      for (const ProbeCase& seen : out) {
        if (seen.path == path) fail(item.Mark(), "probe", "'" + path + "' is listed twice");
      }
      out.push_back({language, path});
    }
    // Every language of the rule is backed by a program that shows the hazard and one that
    // shows the fix.
    for (const std::string& language : rule.languages) {
      for (std::string_view kind : {"bug", "fix"}) {
        const bool found = std::any_of(out.begin(), out.end(), [&](const ProbeCase& probe) {
          return probe.language == language &&
                 probe.path.compare(probe.path.rfind('/') + 1, kind.size(), kind) == 0;
        });
        if (!found) {
          fail(mark("probe"), "probe",
               fmt::format("no {} case for {} ({}/{}/{}{})", kind, language, language, folder, kind,
                           probeExtension(language)));
        }
      }
    }
    return out;
  }

  RuleInfo read() const {
    RuleInfo rule;
    rule.id = text("id", true);
    if (!isRuleId(rule.id)) fail(mark("id"), "id", "'" + rule.id + "' is not GS + 3 digits");
    rule.name = text("name", true);
    if (!isKebabName(rule.name)) {
      fail(mark("name"), "name", "'" + rule.name + "' is not lower-case words joined by '-'");
    }
    rule.family = text("family", true);
    const RuleFamily* family = findRuleFamily(rule.family);
    if (family == nullptr) {
      std::vector<std::string_view> names;
      for (const RuleFamily& known : ruleFamilies()) names.push_back(known.name);
      fail(mark("family"), "family",
           "unknown family '" + rule.family + "' (expected: " + joined(names) + ")");
    }
    if (family->digit != rule.id[2]) {
      fail(mark("family"), "family",
           fmt::format("'{}' holds GS{}xx rules, not {}", rule.family, family->digit, rule.id));
    }
    const std::string severity = text("severity", true);
    if (severity == "error") {
      rule.severity = Severity::kError;
    } else if (severity == "warning") {
      rule.severity = Severity::kWarning;
    } else {
      fail(mark("severity"), "severity",
           "unknown severity '" + severity + "' (expected: error, warning)");
    }
    rule.languages = languages();
    rule.applies_when_traced = flag("traced");
    if (rule.applies_when_traced &&
        std::find(rule.languages.begin(), rule.languages.end(), "python") == rule.languages.end()) {
      fail(mark("traced"), "traced", "only Python code is traced by torch.compile");
    }
    rule.summary = text("summary", true);
    rule.rationale = text("rationale", false);
    rule.bad_examples = examples("bad", rule.languages);
    rule.good_examples = examples("good", rule.languages);
    rule.bad = rule.bad_examples.front().code;
    rule.good = rule.good_examples.front().code;
    rule.fix = text("fix", true);
    rule.detects = text("detects", false);
    rule.misses = text("misses", false);
    rule.observed = text("observed", false);
    rule.probe_cases = probeCases(rule);
    return rule;
  }

 private:
  struct Field {
    YAML::Mark key_mark;
    YAML::Node value;
  };
  std::string file_;
  YAML::Mark root_mark_;
  std::map<std::string, Field, std::less<>> fields_;
};

}  // namespace

std::string RuleInfo::docsUrl() const {
  return std::string(kDocsBaseUrl) + id + "-" + name + ".md";
}

std::vector<RuleInfo> RuleCatalog::parse(
    const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<RuleInfo> rules;
  // Where each ID and name was first seen, for the duplicate errors.
  std::map<std::string, std::string> id_files;
  std::map<std::string, std::string> name_files;
  for (const auto& [file, content] : files) {
    YAML::Node root;
    try {
      root = YAML::Load(content);
    } catch (const YAML::Exception& error) {
      throw std::runtime_error(fmt::format("{}:{}:{}: catalog entry: invalid YAML: {}", file,
                                           error.mark.line + 1, error.mark.column + 1, error.msg));
    }
    const EntryReader reader(file, root);
    RuleInfo rule = reader.read();
    if (auto [it, inserted] = id_files.emplace(rule.id, file); !inserted) {
      reader.fail(reader.mark("id"), "id",
                  "duplicate id '" + rule.id + "' (also in " + it->second + ")");
    }
    if (auto [it, inserted] = name_files.emplace(rule.name, file); !inserted) {
      reader.fail(reader.mark("name"), "name",
                  "duplicate name '" + rule.name + "' (also in " + it->second + ")");
    }
    rules.push_back(std::move(rule));
  }
  std::sort(rules.begin(), rules.end(),
            [](const RuleInfo& a, const RuleInfo& b) { return a.id < b.id; });
  return rules;
}

RuleCatalog::RuleCatalog() {
  std::vector<std::pair<std::string, std::string>> files;
  for (const EmbeddedFile& file : embeddedCatalogFiles()) {
    files.emplace_back(std::string(file.name), std::string(file.content));
  }
  // The embedded catalog is checked by the test suite; a bad entry is a build defect.
  rules_ = parse(files);
  // Checks must not ask for the catalog while they are constructed: it is being built here.
  std::set<std::string, std::less<>> implemented;
  for (const auto& check : makeAllChecks()) implemented.emplace(check->id());
  for (RuleInfo& rule : rules_) rule.implemented = implemented.count(rule.id) != 0;
}

const RuleCatalog& RuleCatalog::instance() {
  static const RuleCatalog catalog;
  return catalog;
}

const RuleInfo* RuleCatalog::find(std::string_view id) const {
  const auto it = std::lower_bound(
      rules_.begin(), rules_.end(), id,
      [](const RuleInfo& rule, std::string_view wanted) { return rule.id < wanted; });
  if (it != rules_.end() && it->id == id) return &*it;
  const auto named = std::find_if(rules_.begin(), rules_.end(),
                                  [&](const RuleInfo& rule) { return rule.name == id; });
  return named == rules_.end() ? nullptr : &*named;
}

}  // namespace graphsafe
