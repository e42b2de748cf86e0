// Inputs the fuzz targets (fuzz/) found crashing, minimized, through the same entry points as the
// targets. Each failed before its fix: under the sanitizer suite (`scripts/dev.sh sanitize`) with
// a report, or in any build with an abort.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "analyzer/config/config.h"
#include "analyzer/config/config_tree.h"
#include "analyzer/engine/engine.h"
#include "analyzer/source/source_file.h"

namespace graphsafe {
namespace {

// python_analysis: the qualified name of `os.environ.get` was a temporary that the canonical
// API name (a view into it) outlived; AddressSanitizer reported stack-use-after-scope.
TEST(FuzzRegression, EnvironmentReadInAConditionKeepsItsNameAlive) {
  const std::string text =
      "import os\n"
      "import torch\n"
      "FLAG = os.environ.get('APP_FLAG', '0') == '1'\n"
      "def f(t):\n"
      "    if FLAG or os.getenv('APP_OTHER') is not None:\n"
      "        t.sum().item()\n"
      "def run(t):\n"
      "    g = torch.cuda.CUDAGraph()\n"
      "    with torch.cuda.graph(g):\n"
      "        f(t)\n";
  EngineOptions options;
  options.jobs = 1;
  RunResult result =
      analyzeSources({std::make_shared<const SourceFile>("model.py", text)}, options);
  EXPECT_TRUE(result.diagnostics.empty());  // both variables are unset by default
}

// config_toml: a table header whose key starts with `{` reached an internal assertion of the
// header-only TOML parser (an abort) instead of a parse error.
TEST(FuzzRegression, MalformedTableHeaderIsASyntaxError) {
  const std::string text = "select = \"GS4fatal\"\n[{exclude]]'\"x\"\n";
  for (const char* table : {"", "tool.graphsafe"}) {
    try {
      parseTomlConfig("fuzz.toml", text, table);
      ADD_FAILURE() << "no error for table '" << table << "'";
    } catch (const ConfigError& error) {
      EXPECT_EQ(error.file, "fuzz.toml");
      EXPECT_EQ(error.line, 2);
      EXPECT_TRUE(error.message.starts_with("invalid TOML: ")) << error.message;
    }
  }
}

}  // namespace
}  // namespace graphsafe
