#include "analyzer/engine/cuda_frontend_loader.h"

namespace graphsafe {

// Placeholder until the CUDA C++ frontend module is built: C++ files get a notice.
std::unique_ptr<Frontend> loadCudaFrontend(std::string& error) {
  error = "the CUDA C++ frontend is not part of this build";
  return nullptr;
}

}  // namespace graphsafe
