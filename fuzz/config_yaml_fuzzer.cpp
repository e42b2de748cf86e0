// .graphsafe.yaml text through the YAML parser, the validator and the merge into the engine's
// options. The only exception allowed out is ConfigError (the CLI turns it into exit code 2);
// anything else escaping is a crash here.

#include <cstddef>
#include <cstdint>
#include <string>

#include "analyzer/config/apply_config.h"
#include "analyzer/config/config.h"
#include "analyzer/config/config_tree.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphsafe;
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    Config config = validateConfig(parseYamlConfig("fuzz/.graphsafe.yaml", text));
    EngineOptions options;
    options.selection.select = {"GS4"};
    applyConfig(config, options);
  } catch (const ConfigError&) {
  }
  return 0;
}
