#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace graphsafe {

struct Config;

struct ConfigEntry;

// A configuration document in a form independent of its file format, so that one validator
// gives YAML and TOML files the same checks and the same messages.
struct ConfigNode {
  enum class Kind { kNull, kString, kBool, kInteger, kFloat, kList, kTable, kOther };
  Kind kind = Kind::kNull;
  std::string text;                  // scalars as written; kOther: what it is ("a date")
  int line = 0;                      // 1-based; 0 = unknown
  std::vector<ConfigNode> items;     // kList
  std::vector<ConfigEntry> entries;  // kTable, in file order
};

struct ConfigEntry {
  std::string key;
  int line = 0;  // the key's line
  ConfigNode value;
};

enum class ConfigFormat { kYaml, kToml };

// Whose file it is: the project's (found above the analyzed paths, or named with --config: a
// repository's author wrote it) or the user's own (config.h, findUserConfigFile()), which alone
// may lift the bounds and accept an incomplete analysis.
enum class ConfigScope { kProject, kUser };

struct ConfigDocument {
  std::string path;  // for messages
  ConfigFormat format = ConfigFormat::kYaml;
  std::string key_prefix;  // "[tool.graphsafe] " in pyproject.toml, else empty
  ConfigScope scope = ConfigScope::kProject;
  ConfigNode root;
};

// Documents deeper or larger than this cannot be a valid configuration; the parsers stop
// converting there (YAML aliases could otherwise expand a small file enormously).
inline constexpr int kMaxConfigDepth = 8;
inline constexpr std::size_t kMaxConfigNodes = 100000;

// Parsers, one per format. Throw ConfigError on syntax errors.
ConfigDocument parseYamlConfig(const std::string& path, const std::string& text);
// `table_path` is the dotted table holding the settings ("tool.graphsafe"), or empty for the
// top level; nullopt when that table is absent.
std::optional<ConfigDocument> parseTomlConfig(const std::string& path, const std::string& text,
                                              const std::string& table_path);

// Checks every key and value against the schema and builds the Config; the one place where
// messages are worded. Throws ConfigError naming the file, the line and the key.
Config validateConfig(const ConfigDocument& document);

}  // namespace graphsafe
