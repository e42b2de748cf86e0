#pragma once

// A small stand-in for the PyTorch C++ headers (torch/extension.h, ATen, c10, pybind11), so that
// extension sources analyze on machines without torch: the tensor class, the CUDA stream and
// graph API, the dispatch and registration macros. Served from an in-memory directory searched
// after every other include directory, so a real torch install on the include path wins.

#include <vector>

#include "frontends/cuda/builtin_cuda_declarations.h"

namespace graphsafe::cuda {

const std::vector<VirtualHeader>& builtinTorchHeaders();

}  // namespace graphsafe::cuda
