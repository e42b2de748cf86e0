#include "frontends/cuda/cuda_toolkit.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string_view>

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

std::string readSmallFile(const fs::path& path) {
  constexpr std::streamsize kMaxBytes = 256 << 10;  // both keep their version near the top
  if (!isFile(path)) return "";
  std::ifstream in(path, std::ios::binary);
  std::string text(static_cast<std::size_t>(kMaxBytes), '\0');
  in.read(text.data(), kMaxBytes);
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

// The digits at `at` (moved past them), or -1; at most 6 of them.
int number(std::string_view text, std::size_t& at) {
  int value = 0;
  std::size_t digits = 0;
  while (at < text.size() && text[at] >= '0' && text[at] <= '9' && digits < 6) {
    value = value * 10 + (text[at++] - '0');
    ++digits;
  }
  return digits == 0 ? -1 : value;
}

// version.json: `"cuda_nvcc" : { "name" : ..., "version" : "12.4.131" }`; include/cuda.h:
// `#define CUDA_VERSION 12040`.
void readVersion(const fs::path& root, CudaToolkit& toolkit) {
  std::string json = readSmallFile(root / "version.json");
  if (std::size_t nvcc = json.find("\"cuda_nvcc\""); nvcc != std::string::npos) {
    std::size_t key = json.find("\"version\"", nvcc);
    std::size_t quote = key == std::string::npos ? key : json.find('"', key + 9);
    if (quote != std::string::npos && json.find('}', nvcc) > key) {
      std::size_t at = quote + 1;
      int major = number(json, at);
      int minor = at < json.size() && json[at] == '.' ? number(json, ++at) : -1;
      int build = at < json.size() && json[at] == '.' ? number(json, ++at) : 0;
      if (major >= 0 && minor >= 0) {
        toolkit.major = major;
        toolkit.minor = minor;
        toolkit.build = std::max(build, 0);
        return;
      }
    }
  }
  std::string header = readSmallFile(root / "include" / "cuda.h");
  constexpr std::string_view kDefine = "#define CUDA_VERSION";
  if (std::size_t define = header.find(kDefine); define != std::string::npos) {
    std::size_t at = define + kDefine.size();
    while (at < header.size() && (header[at] == ' ' || header[at] == '\t')) ++at;
    if (int version = number(header, at); version > 0) {
      toolkit.major = version / 1000;
      toolkit.minor = version % 1000 / 10;
    }
  }
}

CudaToolkit inspect(const std::string& root) {
  CudaToolkit toolkit;
  fs::path include = fs::path(root) / "include";
  if (!isFile(include / "cuda_runtime.h")) return toolkit;
  toolkit.root = root;
  toolkit.has_cccl = isDirectory(include / "cccl");
  toolkit.needs_texture_shim = !isFile(include / "texture_fetch_functions.h");
  readVersion(root, toolkit);
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

CudaToolkit cudaToolkitAt(const std::string& root) {
  return inspectCached(root);
}

bool builtinDeclarationsForced(const AnalysisSettings& settings) {
  return settings.cuda_path == "none" ||
         (settings.cuda_path.empty() && environment("GRAPHSAFE_CUDA_PATH") == "none");
}

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

bool isToolkitOnlyHeader(std::string_view include) {
  for (std::string_view prefix : {"thrust/", "cub/", "cuda/", "nv/", "cooperative_groups", "crt/",
                                  "cuda_", "cuComplex", "cudaTypedefs", "curand", "cufft",
                                  "cusparse", "cusolver", "nvtx3/", "nvToolsExt", "mma.h",
                                  "vector_types.h", "vector_functions", "sm_", "math_constants"}) {
    if (include.starts_with(prefix)) return true;
  }
  return false;
}

}  // namespace graphsafe::cuda
