// One translation unit through the CUDA C++ frontend, in this process: Clang's parse with the
// built-in CUDA and torch declarations, the lowering into the capture model, and the model's
// encoding for the pipe that carries it from a worker process back to the analysis. The bytes
// are a `.cu` file; a first byte of `#` or not picks the `.cu` or `.cpp` spelling, so that both
// languages are reached.
//
// The worker isolation (analyzer/engine/isolated_frontend.h) turns a crash of Clang into a
// notice; here it is switched off, so that a crash is the fuzzer's to find. Checked besides memory
// safety and UB: no exception escapes, and the model decodes to the bytes it was encoded from.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "analyzer/engine/analysis_settings.h"
#include "analyzer/engine/cuda_frontend_loader.h"
#include "analyzer/engine/frontend.h"
#include "analyzer/model/model_codec.h"
#include "analyzer/source/source_file.h"

extern "C" graphsafe::Frontend* graphsafe_create_cuda_frontend(std::uint64_t abi);

namespace {

// Made once: the module's entry point, called directly (this target links the frontend in).
const graphsafe::Frontend* frontend = nullptr;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  // The CUDA toolkit of the machine would make every input parse the real headers (seconds);
  // the built-in declarations are what a machine without CUDA uses.
  ::setenv("GRAPHSAFE_CUDA_PATH", "none", 1);
  frontend = graphsafe_create_cuda_frontend(graphsafe::cudaFrontendAbi());
  if (frontend == nullptr) std::abort();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphsafe;
  std::string text(reinterpret_cast<const char*>(data), size);
  const char* path = !text.empty() && text[0] == '#' ? "/fuzz/unit.cu" : "/fuzz/unit.cpp";
  auto source = std::make_shared<const SourceFile>(path, std::move(text));
  AnalysisSettings settings;
  settings.cuda_path = "none";
  FileModel model = frontend->analyze(source, settings);
  const std::string bytes = encodeFileModel(model);
  std::string error;
  auto decoded = decodeFileModel(bytes, source, error);
  if (!decoded || encodeFileModel(*decoded) != bytes) std::abort();
  return 0;
}
