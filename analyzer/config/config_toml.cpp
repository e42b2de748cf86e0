#include <toml++/toml.h>

#include <algorithm>
#include <sstream>
#include <string_view>

#include "analyzer/config/config.h"
#include "analyzer/config/config_tree.h"

namespace graphsafe {

namespace {

int lineOf(const toml::source_region& region) {
  return static_cast<int>(region.begin.line);
}

class Converter {
 public:
  explicit Converter(const std::string& path) : path_(path) {}

  // Recursive over the document's depth, which toml++ and kMaxConfigDepth bound.
  ConfigNode convert(const toml::node& node, int depth, int fallback_line) {
    ConfigNode out;
    out.line = lineOf(node.source());
    if (out.line == 0) out.line = fallback_line;
    if (++nodes_ > kMaxConfigNodes) {
      throw ConfigError(path_, out.line, "", "the file is too large to be a configuration");
    }
    if (depth >= kMaxConfigDepth && (node.is_table() || node.is_array())) {
      out.kind = ConfigNode::Kind::kOther;
      out.text = "a deeply nested value";
      return out;
    }
    switch (node.type()) {
      case toml::node_type::table:
        out.kind = ConfigNode::Kind::kTable;
        for (const auto& [key, value] : *node.as_table()) {
          ConfigEntry entry;
          entry.key = std::string(key.str());
          entry.line = lineOf(key.source());
          if (entry.line == 0) entry.line = out.line;
          entry.value = convert(value, depth + 1, entry.line);
          out.entries.push_back(std::move(entry));
        }
        // toml++ keeps keys sorted; file order makes the first error reported the first one
        // in the file, and keeps per-file-ignores in the order they were written.
        std::stable_sort(
            out.entries.begin(), out.entries.end(),
            [](const ConfigEntry& a, const ConfigEntry& b) { return a.line < b.line; });
        break;
      case toml::node_type::array:
        out.kind = ConfigNode::Kind::kList;
        for (const toml::node& item : *node.as_array()) {
          out.items.push_back(convert(item, depth + 1, out.line));
        }
        break;
      case toml::node_type::string:
        out.kind = ConfigNode::Kind::kString;
        out.text = node.as_string()->get();
        break;
      case toml::node_type::integer:
        out.kind = ConfigNode::Kind::kInteger;
        out.text = std::to_string(node.as_integer()->get());
        break;
      case toml::node_type::floating_point: {
        out.kind = ConfigNode::Kind::kFloat;
        std::ostringstream text;
        text << node.as_floating_point()->get();
        out.text = text.str();
        break;
      }
      case toml::node_type::boolean:
        out.kind = ConfigNode::Kind::kBool;
        out.text = node.as_boolean()->get() ? "true" : "false";
        break;
      case toml::node_type::date:
      case toml::node_type::time:
      case toml::node_type::date_time:
        out.kind = ConfigNode::Kind::kOther;
        out.text = "a date or time";
        break;
      case toml::node_type::none:
        out.kind = ConfigNode::Kind::kNull;
        break;
    }
    return out;
  }

 private:
  const std::string& path_;
  std::size_t nodes_ = 0;
};

}  // namespace

std::optional<ConfigDocument> parseTomlConfig(const std::string& path, const std::string& text,
                                              const std::string& table_path) {
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& error) {
    throw ConfigError(path, lineOf(error.source()), "",
                      "invalid TOML: " + std::string(error.description()));
  }

  ConfigDocument document;
  document.path = path;
  document.format = ConfigFormat::kToml;
  const toml::node* settings = &root;
  int line = 1;
  if (!table_path.empty()) {
    document.key_prefix = "[" + table_path + "] ";
    std::string_view rest = table_path;
    while (!rest.empty()) {
      std::size_t dot = rest.find('.');
      std::string_view part = rest.substr(0, dot);
      rest = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
      const toml::table* table = settings->as_table();
      if (table == nullptr) return std::nullopt;
      auto found = table->find(part);
      if (found == table->end()) return std::nullopt;
      line = lineOf(found->first.source());
      settings = &found->second;
    }
  }
  document.root = Converter(path).convert(*settings, 0, line > 0 ? line : 1);
  return document;
}

}  // namespace graphsafe
