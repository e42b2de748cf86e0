#pragma once

#include <string_view>

namespace graphsafe {

// The lexical pre-filter for C++/CUDA files: can this text hold anything a rule looks at? A kernel
// launch (`<<<`), a CUDA runtime or driver API call (`cudaX...`, `cuX...`), cuBLAS/cuDNN, the
// torch CUDAGraph or stream API, or operator registration. Files that cannot are not parsed, so
// a large tree does not pay a Clang parse per file. Lives in the core so that the engine can ask
// before it loads the CUDA frontend module; the module's mayMatter() answers the same.
bool cudaSourceMayMatter(std::string_view text);

}  // namespace graphsafe
