// Arbitrary bytes through the whole Python pipeline: the reader's text checks, the tree-sitter
// frontend, cross-file resolution, every rule, suppressions, and one of three output formats. A NUL
// byte splits the input into up to three modules, so that calls between files are
// exercised too (a NUL inside a file would only get it skipped as binary).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/engine/engine.h"
#include "analyzer/output/output_format.h"
#include "analyzer/source/source_file.h"

namespace {

// Module names come from the paths (modules "model", "steps", "helpers").
constexpr const char* kPaths[] = {"model.py", "steps.py", "helpers.py"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphsafe;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<SourceFilePtr> sources;
  for (std::size_t i = 0; i < std::size(kPaths); ++i) {
    std::size_t cut = input.find('\0');
    bool last = cut == std::string_view::npos || i + 1 == std::size(kPaths);
    std::string_view text = last ? input : input.substr(0, cut);
    sources.push_back(std::make_shared<const SourceFile>(kPaths[i], std::string(text)));
    if (last) break;
    input.remove_prefix(cut + 1);
  }

  EngineOptions options;
  options.jobs = 1;  // deterministic, and libFuzzer's leak check wants one thread
  options.settings.capture_entry_points = {"steps.step"};
  RunResult result = analyzeSources(sources, options);

  // One output format per input, picked by its size: writing all three would double the cost
  // of a run (SARIF carries the whole rule catalog).
  constexpr OutputFormat kFormats[] = {OutputFormat::kText, OutputFormat::kJson,
                                       OutputFormat::kSarif};
  std::ostringstream out;
  std::ostringstream status;
  OutputOptions output;
  output.working_directory = "/";
  writeResult(kFormats[size % std::size(kFormats)], result, out, status, output);
  return 0;
}
