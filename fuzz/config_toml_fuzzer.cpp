// TOML configuration text, read both ways graphsafe reads TOML: as pyproject.toml (settings
// under [tool.graphsafe]) and as a plain .toml file (settings at the top level), through the
// validator and the merge into the engine's options. Only ConfigError may escape.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "analyzer/config/apply_config.h"
#include "analyzer/config/config.h"
#include "analyzer/config/config_tree.h"

namespace {

void load(const std::string& path, const std::string& text, const std::string& table) {
  using namespace graphsafe;
  try {
    std::optional<ConfigDocument> document = parseTomlConfig(path, text, table);
    if (!document) return;
    Config config = validateConfig(*document);
    EngineOptions options;
    applyConfig(config, options);
  } catch (const ConfigError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  load("fuzz/pyproject.toml", text, "tool.graphsafe");
  load("fuzz/graphsafe.toml", text, "");
  return 0;
}
