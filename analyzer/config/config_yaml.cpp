#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <initializer_list>
#include <string_view>

#include "analyzer/config/config.h"
#include "analyzer/config/config_tree.h"

namespace graphsafe {

namespace {

bool isOneOf(std::string_view text, std::initializer_list<std::string_view> options) {
  for (std::string_view option : options) {
    if (text == option) return true;
  }
  return false;
}

bool looksInteger(std::string_view text) {
  std::string_view digits = "0123456789";
  if (text.starts_with("0x")) {
    digits = "0123456789abcdefABCDEF";
    text.remove_prefix(2);
  } else if (text.starts_with("0o")) {
    digits = "01234567";
    text.remove_prefix(2);
  } else if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    text.remove_prefix(1);
  }
  return !text.empty() && text.find_first_not_of(digits) == std::string_view::npos;
}

bool looksFloat(std::string_view text) {
  if (isOneOf(text, {".inf", ".Inf", ".INF", "-.inf", "+.inf", ".nan", ".NaN", ".NAN"})) {
    return true;
  }
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) text.remove_prefix(1);
  bool digit = false;
  bool dot_or_exp = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digit = true;
    } else if (c == '.' || c == 'e' || c == 'E') {
      dot_or_exp = true;
    } else if ((c == '+' || c == '-') && i > 0 && (text[i - 1] == 'e' || text[i - 1] == 'E')) {
      continue;
    } else {
      return false;
    }
  }
  return digit && dot_or_exp;
}

// Plain (unquoted) scalars are typed as YAML 1.2's core schema types them; quoted ones are
// always strings.
ConfigNode::Kind scalarKind(const YAML::Node& node) {
  if (node.Tag() == "!") return ConfigNode::Kind::kString;
  const std::string& text = node.Scalar();
  if (isOneOf(text, {"", "~", "null", "Null", "NULL"})) return ConfigNode::Kind::kNull;
  if (isOneOf(text, {"true", "True", "TRUE", "false", "False", "FALSE"})) {
    return ConfigNode::Kind::kBool;
  }
  if (looksInteger(text)) return ConfigNode::Kind::kInteger;
  if (looksFloat(text)) return ConfigNode::Kind::kFloat;
  return ConfigNode::Kind::kString;
}

int lineOf(const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  return mark.line >= 0 ? mark.line + 1 : 0;
}

class Converter {
 public:
  explicit Converter(const std::string& path) : path_(path) {}

  // Iterative over the document's width, recursive over its depth, which is bounded.
  ConfigNode convert(const YAML::Node& node, int depth, int fallback_line) {
    if (++nodes_ > kMaxConfigNodes) {
      // Aliases repeat a value without repeating its text: a few lines can stand for billions.
      const std::string many = "more than " + std::to_string(kMaxConfigNodes) +
                               " values (YAML aliases repeat them), more than a configuration holds";
      if (key_.empty()) throw ConfigError(path_, lineOf(node), "", "the document expands to " + many);
      throw ConfigError(path_, key_line_, key_, key_ + ": expands to " + many);
    }
    ConfigNode out;
    out.line = lineOf(node);
    if (out.line == 0) out.line = fallback_line;
    if (depth >= kMaxConfigDepth && (node.IsSequence() || node.IsMap())) {
      out.kind = ConfigNode::Kind::kOther;
      out.text = "a deeply nested value";
      return out;
    }
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        out.kind = ConfigNode::Kind::kNull;
        break;
      case YAML::NodeType::Scalar:
        out.kind = scalarKind(node);
        out.text = node.Scalar();
        break;
      case YAML::NodeType::Sequence:
        out.kind = ConfigNode::Kind::kList;
        for (const YAML::Node& item : node) {
          out.items.push_back(convert(item, depth + 1, out.line));
        }
        break;
      case YAML::NodeType::Map:
        out.kind = ConfigNode::Kind::kTable;
        for (const auto& pair : node) {
          const YAML::Node& key = pair.first;
          int key_line = lineOf(key);
          if (key_line == 0) key_line = out.line;
          if (!key.IsScalar()) {
            throw ConfigError(path_, key_line, "", "keys must be plain strings");
          }
          ConfigEntry entry;
          entry.key = key.Scalar();
          entry.line = key_line;
          if (depth == 0) {
            key_ = entry.key;
            key_line_ = key_line;
          }
          entry.value = convert(pair.second, depth + 1, key_line);
          out.entries.push_back(std::move(entry));
        }
        break;
    }
    return out;
  }

 private:
  const std::string& path_;
  std::size_t nodes_ = 0;
  std::string key_;  // the top-level key being converted, for messages
  int key_line_ = 0;
};

}  // namespace

ConfigDocument parseYamlConfig(const std::string& path, const std::string& text) {
  ConfigDocument document;
  document.path = path;
  document.format = ConfigFormat::kYaml;
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::DeepRecursion& error) {
    int line = error.mark.line >= 0 ? error.mark.line + 1 : 0;
    throw ConfigError(path, line, "", "invalid YAML: nested too deeply");
  } catch (const YAML::Exception& error) {
    int line = error.mark.line >= 0 ? error.mark.line + 1 : 0;
    throw ConfigError(path, line, "", "invalid YAML: " + error.msg);
  }
  try {
    document.root = Converter(path).convert(root, 0, 1);
  } catch (const YAML::Exception& error) {
    int line = error.mark.line >= 0 ? error.mark.line + 1 : 0;
    throw ConfigError(path, line, "", "invalid YAML: " + error.msg);
  }
  return document;
}

}  // namespace graphsafe
