#pragma once

#include <string>

#include "analyzer/engine/analysis_settings.h"

namespace graphsafe::cuda {

// The CUDA toolkit the frontend parses against, or none: then the built-in declarations stand in
// for the CUDA headers. Chosen, in order, by the `cuda_path` setting (`--cuda-path`), the
// GRAPHSAFE_CUDA_PATH environment variable, CUDA_HOME, CUDA_PATH, then /usr/local/cuda. The value
// "none" (setting or GRAPHSAFE_CUDA_PATH) forces the built-in declarations. A candidate counts
// only if it has include/cuda_runtime.h.
struct CudaToolkit {
  std::string root;                 // "" when none is used
  bool has_cccl = false;            // include/cccl (thrust, cub, libcu++ since CUDA 13)
  bool needs_texture_shim = false;  // texture_fetch_functions.h gone (CUDA 13) but Clang 19's
                                    // CUDA wrapper still includes it

  bool found() const { return !root.empty(); }
};

CudaToolkit findCudaToolkit(const AnalysisSettings& settings);

}  // namespace graphsafe::cuda
