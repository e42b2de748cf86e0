#include "frontends/cuda/cuda_toolkit.h"

#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>

namespace graphsafe::cuda {

namespace {

namespace fs = std::filesystem;

bool isFile(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error);
}

bool isDirectory(const fs::path& path) {
  std::error_code error;
  return fs::is_directory(path, error);
}

CudaToolkit inspect(const std::string& root) {
  CudaToolkit toolkit;
  fs::path include = fs::path(root) / "include";
  if (!isFile(include / "cuda_runtime.h")) return toolkit;
  toolkit.root = root;
  toolkit.has_cccl = isDirectory(include / "cccl");
  toolkit.needs_texture_shim = !isFile(include / "texture_fetch_functions.h");
  return toolkit;
}

// Inspecting is a few stat calls; remembered per root because every file asks.
CudaToolkit inspectCached(const std::string& root) {
  static std::mutex mutex;
  static std::map<std::string, CudaToolkit> cache;
  std::lock_guard lock(mutex);
  auto it = cache.find(root);
  if (it == cache.end()) it = cache.emplace(root, inspect(root)).first;
  return it->second;
}

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::string(value) : std::string();
}

}  // namespace

CudaToolkit findCudaToolkit(const AnalysisSettings& settings) {
  if (settings.cuda_path == "none") return {};
  if (!settings.cuda_path.empty()) return inspectCached(settings.cuda_path);
  std::string forced = environment("GRAPHSAFE_CUDA_PATH");
  if (forced == "none") return {};
  if (!forced.empty()) return inspectCached(forced);
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"}) {
    std::string root = environment(variable);
    if (root.empty()) continue;
    CudaToolkit toolkit = inspectCached(root);
    if (toolkit.found()) return toolkit;
  }
  return inspectCached("/usr/local/cuda");
}

}  // namespace graphsafe::cuda
