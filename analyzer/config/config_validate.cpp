#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>

#include "analyzer/catalog/rule_catalog.h"
#include "analyzer/config/config.h"
#include "analyzer/config/config_tree.h"
#include "analyzer/config/suggestion.h"

namespace graphsafe {

namespace {

using Kind = ConfigNode::Kind;

constexpr std::string_view kSelect = "select";
constexpr std::string_view kIgnore = "ignore";
constexpr std::string_view kPerFileIgnores = "per-file-ignores";
constexpr std::string_view kExclude = "exclude";
constexpr std::string_view kSeverity = "severity";
constexpr std::string_view kCaptureEntryPoints = "capture-entry-points";
constexpr std::string_view kExtraSyncApis = "extra-sync-apis";
constexpr std::string_view kExtraStateApis = "extra-state-apis";
constexpr std::string_view kCaptureFlags = "capture-flags";
constexpr std::string_view kEnvironment = "environment";
constexpr std::string_view kCxxTimeout = "cxx-timeout";
constexpr std::string_view kCxxMemory = "cxx-memory";
constexpr std::string_view kAllowIncomplete = "allow-incomplete";

// The most a repository's configuration may raise the bounds of one C++ unit to; the user's
// configuration and the command line may go further, or lift them (0).
constexpr std::uint32_t kProjectMaxTimeoutSeconds = 600;
constexpr std::uint32_t kProjectMaxMemoryMib = 16u << 10;
constexpr std::uint32_t kUserMaxTimeoutSeconds = 86'400;
constexpr std::uint32_t kUserMaxMemoryMib = 1u << 20;

const std::vector<std::string_view>& knownKeys(ConfigScope scope) {
  static const std::vector<std::string_view> project = {
      kSelect,        kIgnore,         kPerFileIgnores,
      kExclude,       kSeverity,       kCaptureEntryPoints,
      kExtraSyncApis, kExtraStateApis, kCaptureFlags,
      kEnvironment,   kCxxTimeout,     kCxxMemory};
  static const std::vector<std::string_view> user = {kAllowIncomplete, kCxxTimeout, kCxxMemory};
  return scope == ConfigScope::kUser ? user : project;
}

bool identifierStart(unsigned char c) {
  return std::isalpha(c) || c == '_' || c >= 0x80;
}
bool identifierChar(unsigned char c) {
  return identifierStart(c) || std::isdigit(c);
}

// Identifiers joined by `.` (Python) or `::` (C++); a leading `::` names C++'s global scope.
bool isQualifiedName(std::string_view name) {
  if (name.starts_with("::")) name.remove_prefix(2);
  if (name.empty()) return false;
  std::size_t i = 0;
  while (true) {
    if (i >= name.size() || !identifierStart(static_cast<unsigned char>(name[i]))) return false;
    while (i < name.size() && identifierChar(static_cast<unsigned char>(name[i]))) ++i;
    if (i == name.size()) return true;
    if (name[i] == '.') {
      i += 1;
    } else if (name.substr(i, 2) == "::") {
      i += 2;
    } else {
      return false;
    }
  }
}

// A key as the file spells it, quoted when it is not a bare word: severity.GS401,
// per-file-ignores."tests/*.py".
std::string joinKey(std::string_view parent, std::string_view child) {
  bool bare = !child.empty() && std::all_of(child.begin(), child.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
  std::string key(parent);
  key += '.';
  if (bare) {
    key += child;
  } else {
    key += '"';
    key += child;
    key += '"';
  }
  return key;
}

// A value as messages show it: quoted, control bytes escaped, long ones cut.
std::string quoted(std::string_view text) {
  constexpr std::size_t kShown = 60;
  std::string out = "'";
  std::size_t end = std::min(text.size(), kShown);
  // Do not cut a UTF-8 sequence in half.
  while (end < text.size() && end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) {
    --end;
  }
  for (char c : text.substr(0, end)) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7F) {
      constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    } else {
      out += c;
    }
  }
  if (end < text.size()) out += "...";
  return out + "'";
}

std::string userConfigSpelling() {
  return "~/.config/graphsafe/graphsafe.yaml";
}

class Validator {
 public:
  explicit Validator(const ConfigDocument& document) : document_(document) {}

  Config run() {
    Config config;
    config.path = document_.path;
    const ConfigNode& root = document_.root;
    if (root.kind == Kind::kNull) return config;  // an empty YAML file
    if (root.kind != Kind::kTable) {
      // Without its text: a file that is not a configuration at all (a link to a credentials
      // file) has nothing of graphsafe's to show, and its lines are not for the log.
      const std::string what = root.kind == Kind::kString ? "a string"
                               : root.kind == Kind::kInteger || root.kind == Kind::kFloat
                                   ? "a number"
                               : root.kind == Kind::kBool ? "a boolean"
                                                          : describe(root);
      fail(root.line, "", "expected " + tableName() + " of settings, got " + what);
    }
    std::set<std::string_view> seen;
    for (const ConfigEntry& entry : root.entries) {
      if (!seen.insert(entry.key).second) {
        fail(entry.line, entry.key, "duplicate key " + quoted(entry.key));
      }
      if (document_.scope == ConfigScope::kUser) {
        userEntry(entry, config);
        continue;
      }
      if (entry.key == kSelect) {
        config.select = ruleCodes(entry.value, entry.key);
      } else if (entry.key == kIgnore) {
        config.ignore = ruleCodes(entry.value, entry.key);
      } else if (entry.key == kExclude) {
        config.exclude = patterns(entry.value, entry.key);
      } else if (entry.key == kPerFileIgnores) {
        perFileIgnores(entry, config);
      } else if (entry.key == kSeverity) {
        severity(entry, config);
      } else if (entry.key == kCaptureEntryPoints) {
        config.capture_entry_points = names(entry.value, entry.key, false);
      } else if (entry.key == kExtraSyncApis) {
        config.extra_sync_apis = names(entry.value, entry.key, true);
      } else if (entry.key == kExtraStateApis) {
        config.extra_state_apis = names(entry.value, entry.key, true);
      } else if (entry.key == kCaptureFlags) {
        config.capture_flags = names(entry.value, entry.key, true);
      } else if (entry.key == kEnvironment) {
        environment(entry, config);
      } else if (entry.key == kCxxTimeout) {
        config.cxx_timeout_seconds = bound(entry, "seconds", 1, kProjectMaxTimeoutSeconds);
      } else if (entry.key == kCxxMemory) {
        config.cxx_memory_mib = bound(entry, "MiB", 256, kProjectMaxMemoryMib);
      } else if (entry.key == kAllowIncomplete) {
        fail(entry.line, entry.key,
             entry.key +
                 ": a repository's configuration cannot accept an incomplete analysis for whoever "
                 "runs it; --allow-incomplete or the user's configuration (" +
                 userConfigSpelling() + ") can");
      } else {
        unknownKey(entry);
      }
    }
    return config;
  }

 private:
  // The settings of the user's configuration: those a repository is not trusted with.
  void userEntry(const ConfigEntry& entry, Config& config) const {
    if (entry.key == kAllowIncomplete) {
      if (entry.value.kind != Kind::kBool) {
        fail(entry.value.line, entry.key,
             entry.key + ": expected true or false, got " + describe(entry.value));
      }
      config.allow_incomplete =
          entry.value.text.starts_with('t') || entry.value.text.starts_with('T');
    } else if (entry.key == kCxxTimeout) {
      config.cxx_timeout_seconds = bound(entry, "seconds", 0, kUserMaxTimeoutSeconds);
    } else if (entry.key == kCxxMemory) {
      config.cxx_memory_mib = bound(entry, "MiB", 0, kUserMaxMemoryMib);
    } else if (std::find(knownKeys(ConfigScope::kProject).begin(),
                         knownKeys(ConfigScope::kProject).end(),
                         entry.key) != knownKeys(ConfigScope::kProject).end()) {
      fail(entry.line, entry.key,
           quoted(entry.key) +
               " is a project setting: put it in the project's .graphsafe.yaml or pyproject.toml "
               "(the user's configuration holds allow-incomplete, cxx-timeout and cxx-memory)");
    } else {
      unknownKey(entry);
    }
  }

  [[noreturn]] void fail(int line, const std::string& key, const std::string& message) const {
    throw ConfigError(document_.path, line, key, document_.key_prefix + message);
  }

  std::string tableName() const {
    return document_.format == ConfigFormat::kToml ? "a table" : "a mapping";
  }

  std::string describe(const ConfigNode& node) const {
    switch (node.kind) {
      case Kind::kNull:
        return "nothing";
      case Kind::kString:
        return "a string (" + quoted(node.text) + ")";
      case Kind::kBool:
        return "a boolean (" + node.text + ")";
      case Kind::kInteger:
      case Kind::kFloat:
        return "a number (" + node.text + ")";
      case Kind::kList:
        return document_.format == ConfigFormat::kToml ? "an array" : "a list";
      case Kind::kTable:
        return tableName();
      case Kind::kOther:
        return node.text;
    }
    return "something else";
  }

  [[noreturn]] void unknownKey(const ConfigEntry& entry) const {
    std::string message = "unknown key " + quoted(entry.key);
    if (auto suggestion = closestName(entry.key, knownKeys(document_.scope))) {
      message += " (did you mean '" + *suggestion + "'?)";
    }
    fail(entry.line, entry.key, message);
  }

  const std::vector<ConfigNode>& list(const ConfigNode& node, const std::string& key,
                                      std::string_view what) const {
    if (node.kind != Kind::kList) {
      fail(node.line, key,
           key + ": expected a list of " + std::string(what) + ", got " + describe(node));
    }
    return node.items;
  }

  const std::string& string(const ConfigNode& node, const std::string& key,
                            std::string_view what) const {
    if (node.kind != Kind::kString) {
      fail(node.line, key, key + ": expected " + std::string(what) + ", got " + describe(node));
    }
    return node.text;
  }

  // A rule ID or a prefix of one ("GS4" = the family): `GS` and digits, as on the command line.
  void checkRuleCode(const std::string& code, int line, const std::string& key) const {
    const auto& rules = RuleCatalog::instance().rules();
    bool well_formed =
        code.size() > 2 && code.starts_with("GS") &&
        std::all_of(code.begin() + 2, code.end(), [](char c) { return c >= '0' && c <= '9'; });
    bool known = well_formed && std::any_of(rules.begin(), rules.end(), [&](const RuleInfo& r) {
                   return std::string_view(r.id).starts_with(code);
                 });
    if (known) return;
    std::string message = key + ": " + quoted(code) + " is not a rule";
    std::vector<std::string_view> ids;
    for (const RuleInfo& rule : rules) ids.emplace_back(rule.id);
    if (auto suggestion = closestName(code, ids, 1)) {
      message += " (did you mean '" + *suggestion + "'?)";
    }
    fail(line, key, message);
  }

  std::vector<std::string> ruleCodes(const ConfigNode& node, const std::string& key) const {
    std::vector<std::string> codes;
    for (const ConfigNode& item : list(node, key, "rule codes")) {
      const std::string& code = string(item, key, "a rule code");
      checkRuleCode(code, item.line, key);
      codes.push_back(code);
    }
    return codes;
  }

  void checkPattern(const std::string& pattern, int line, const std::string& key) const {
    if (pattern.empty()) fail(line, key, key + ": empty pattern");
    if (pattern.find_first_of("\r\n") != std::string::npos) {
      fail(line, key, key + ": a pattern cannot span lines");
    }
  }

  std::vector<std::string> patterns(const ConfigNode& node, const std::string& key) const {
    std::vector<std::string> out;
    for (const ConfigNode& item : list(node, key, "patterns")) {
      const std::string& pattern = string(item, key, "a pattern");
      checkPattern(pattern, item.line, key);
      out.push_back(pattern);
    }
    return out;
  }

  std::vector<std::string> names(const ConfigNode& node, const std::string& key,
                                 bool method_form) const {
    std::string_view what = method_form ? "API names" : "qualified names";
    std::string_view example =
        method_form ? "'pkg.mod.func' or '.method'" : "'pkg.mod.Runner.run' or 'ns::Class::method'";
    std::vector<std::string> out;
    for (const ConfigNode& item : list(node, key, what)) {
      const std::string& name = string(item, key, method_form ? "an API name" : "a qualified name");
      std::string_view bare = name;
      if (method_form && bare.starts_with('.')) bare.remove_prefix(1);
      if (!isQualifiedName(bare)) {
        fail(item.line, key,
             key + ": " + quoted(name) + " is not " +
                 (method_form ? "an API name" : "a qualified name") + " (write it like " +
                 std::string(example) + ")");
      }
      out.push_back(name);
    }
    return out;
  }

  const std::vector<ConfigEntry>& table(const ConfigEntry& entry, std::string_view what) const {
    if (entry.value.kind != Kind::kTable) {
      fail(entry.value.line, entry.key,
           entry.key + ": expected " + tableName() + " of " + std::string(what) + ", got " +
               describe(entry.value));
    }
    std::set<std::string_view> seen;
    for (const ConfigEntry& child : entry.value.entries) {
      if (!seen.insert(child.key).second) {
        fail(child.line, joinKey(entry.key, child.key),
             entry.key + ": duplicate key " + quoted(child.key));
      }
    }
    return entry.value.entries;
  }

  void perFileIgnores(const ConfigEntry& entry, Config& config) const {
    std::string base = config.directory();
    for (const ConfigEntry& file : table(entry, "patterns to rule codes")) {
      checkPattern(file.key, file.line, entry.key);
      std::string key = joinKey(entry.key, file.key);
      PerFileIgnore ignore;
      ignore.pattern = file.key;
      ignore.base = base;
      for (const ConfigNode& item : list(file.value, key, "rule codes")) {
        const std::string& code = string(item, key, "a rule code");
        checkRuleCode(code, item.line, entry.key);
        ignore.codes.push_back(code);
      }
      config.per_file_ignores.push_back(std::move(ignore));
    }
  }

  void severity(const ConfigEntry& entry, Config& config) const {
    for (const ConfigEntry& rule : table(entry, "rule codes to severities")) {
      checkRuleCode(rule.key, rule.line, entry.key);
      std::string key = joinKey(entry.key, rule.key);
      const ConfigNode& value = rule.value;
      if (value.kind == Kind::kString && value.text == "error") {
        config.severity[rule.key] = Severity::kError;
      } else if (value.kind == Kind::kString && value.text == "warning") {
        config.severity[rule.key] = Severity::kWarning;
      } else {
        std::string got = value.kind == Kind::kString ? quoted(value.text) : describe(value);
        fail(value.line, key, key + ": expected 'error' or 'warning', got " + got);
      }
    }
  }

  // NAME: "value" (a string, or an integer written without quotes).
  void environment(const ConfigEntry& entry, Config& config) const {
    for (const ConfigEntry& variable : table(entry, "variable names to values")) {
      std::string key = joinKey(entry.key, variable.key);
      const std::string& name = variable.key;
      bool valid = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                   std::all_of(name.begin(), name.end(), [](char c) {
                     return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                   });
      if (!valid) {
        fail(variable.line, key,
             entry.key + ": " + quoted(name) +
                 " is not an environment variable name (letters, digits and '_')");
      }
      const ConfigNode& value = variable.value;
      if (value.kind != Kind::kString && value.kind != Kind::kInteger) {
        fail(value.line, key, key + ": expected a string, got " + describe(value));
      }
      config.environment.emplace_back(name, value.text);
    }
  }

  // A whole number of `unit` within [low, high]; 0 (when `low` allows it) means "no bound".
  std::uint32_t bound(const ConfigEntry& entry, std::string_view unit, std::uint32_t low,
                      std::uint32_t high) const {
    const ConfigNode& value = entry.value;
    std::string range =
        std::to_string(low) + " to " + std::to_string(high) + " " + std::string(unit);
    if (low == 0) {
      range += ", 0 for no limit";
    } else {
      range += " (no limit, or a higher one, only from --" + entry.key + " or the user's " +
               userConfigSpelling() + ")";
    }
    if (value.kind != Kind::kInteger) {
      fail(value.line, entry.key,
           entry.key + ": expected a whole number (" + range + "), got " + describe(value));
    }
    std::uint64_t number = 0;
    bool valid = !value.text.empty() && value.text.size() <= 12 &&
                 std::all_of(value.text.begin(), value.text.end(),
                             [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    if (valid) number = std::stoull(value.text);
    if (!valid || number < low || number > high) {
      fail(value.line, entry.key, entry.key + ": " + quoted(value.text) + " is not " + range);
    }
    return static_cast<std::uint32_t>(number);
  }

  const ConfigDocument& document_;
};

}  // namespace

Config validateConfig(const ConfigDocument& document) {
  return Validator(document).run();
}

}  // namespace graphsafe
