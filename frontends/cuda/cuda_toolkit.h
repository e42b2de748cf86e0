#pragma once

#include <string>
#include <string_view>

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
  // The version nvcc reports as __CUDACC_VER_MAJOR__/MINOR__/BUILD__: version.json's cuda_nvcc
  // entry when the toolkit has one, else CUDA_VERSION from include/cuda.h (build 0); 0.0.0 when
  // neither says.
  int major = 0;
  int minor = 0;
  int build = 0;

  bool found() const { return !root.empty(); }
};

CudaToolkit findCudaToolkit(const AnalysisSettings& settings);

// The toolkit at `root`, when it is one (include/cuda_runtime.h); remembered per root.
CudaToolkit cudaToolkitAt(const std::string& root);

// The built-in declarations were asked for (`--cuda-path none`, GRAPHSAFE_CUDA_PATH=none).
bool builtinDeclarationsForced(const AnalysisSettings& settings);

// The version the built-in declarations stand for (CUDART_VERSION 12080): the code a project
// keeps for this toolkit is the code analyzed without one.
inline constexpr int kBuiltinCudaMajor = 12;
inline constexpr int kBuiltinCudaMinor = 8;

// An #include name that a CUDA toolkit provides and the built-in declarations do not: Thrust, CUB
// and libcu++ (`thrust/...`, `cub/...`, `cuda/std/...`), the type headers (`cuda_fp16.h`,
// `vector_types.h`), `cooperative_groups.h`, `mma.h`, the math and other libraries.
bool isToolkitOnlyHeader(std::string_view include);

}  // namespace graphsafe::cuda
