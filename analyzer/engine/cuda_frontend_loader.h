#pragma once

#include <memory>
#include <string>

#include "analyzer/engine/frontend.h"

namespace graphsafe {

// The CUDA C++ frontend lives in its own shared module (libgraphsafe_cuda.so) so that a run over
// Python files never loads libLLVM and libclang-cpp. Loaded on the first C++ file that matters.
// Returns null and sets `error` when the module is missing or does not load.
std::unique_ptr<Frontend> loadCudaFrontend(std::string& error);

}  // namespace graphsafe
