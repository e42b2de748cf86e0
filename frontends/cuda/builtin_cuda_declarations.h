#pragma once

// Declarations of the CUDA runtime and driver APIs (and the parts of cuBLAS/cuDNN) graphsafe
// knows, for machines without a CUDA toolkit: enough for Clang to build the host-side AST of
// typical CUDA code. Served from an in-memory directory under the usual header names
// (cuda_runtime.h, cuda.h, cublas_v2.h, cudnn.h, ...).

#include <string_view>
#include <vector>

namespace graphsafe::cuda {

struct VirtualHeader {
  std::string_view name;  // relative to its directory: "cuda_runtime.h", "torch/extension.h"
  std::string_view text;
};

// The headers to serve when no CUDA toolkit is used; each includes the one declarations file.
const std::vector<VirtualHeader>& builtinCudaHeaders();

}  // namespace graphsafe::cuda
