#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "analyzer/engine/analysis_settings.h"
#include "analyzer/engine/frontend.h"
#include "analyzer/model/capture_model.h"

namespace graphsafe {

// The CUDA C++ frontend lives in its own shared module (libgraphsafe_cuda.so) so that a run over
// Python files never loads libLLVM and libclang-cpp. Loaded on the first C++ file that matters.
// Returns null and sets `error` when the module is missing or does not load. Each file is
// analyzed in a child process of its own (analyzer/engine/isolated_frontend.h).
std::unique_ptr<Frontend> loadCudaFrontend(std::string& error);

// The path of the module loadCudaFrontend() loaded, or "" when none is loaded (yet).
std::string loadedCudaFrontendModule();

// The module and the binary exchange model objects, so both must be built from the same headers.
// This fingerprint of the exchanged types' layout is passed to the module's entry point, which
// refuses to create a frontend when its own differs (a module copied from another build).
constexpr std::uint64_t cudaFrontendAbi() {
  std::uint64_t hash = 1469598103934665603ull;
  for (std::uint64_t size :
       {sizeof(FileModel), sizeof(FunctionModel), sizeof(Event), sizeof(CaptureRegion),
        sizeof(Value), sizeof(SourceFile), sizeof(SourceComment), sizeof(Notice),
        sizeof(AnalysisSettings), sizeof(Parameter), sizeof(KeywordArg)}) {
    hash = (hash ^ size) * 1099511628211ull;
  }
  return hash;
}

}  // namespace graphsafe
