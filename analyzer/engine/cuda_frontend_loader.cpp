#include "analyzer/engine/cuda_frontend_loader.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <vector>

#include "analyzer/engine/isolated_frontend.h"

namespace graphsafe {

namespace {

namespace fs = std::filesystem;

constexpr const char* kModuleName = "libgraphsafe_cuda.so";
constexpr const char* kEntryPoint = "graphsafe_create_cuda_frontend";

using CreateFrontend = Frontend* (*)(std::uint64_t abi);

// Where an installed module lies, relative to the directory of the installed binary: `cmake
// --install` and the graphsafe-cuda Debian package put the binary in PREFIX/bin and the module
// in PREFIX/lib/graphsafe (the install rules in CMakeLists.txt use the same path), and the wheel's
// optional module lands there too (scripts/build_wheel.py).
constexpr const char* kInstalledModuleDir = "../lib/graphsafe";

#ifdef GRAPHSAFE_CUDA_MODULE_BUILD_PATH
// Whether `path` is `directory` or lies under it (both canonical).
bool isWithin(const fs::path& path, const fs::path& directory) {
  return std::mismatch(directory.begin(), directory.end(), path.begin(), path.end()).first ==
         directory.end();
}
#endif

// Where to look, in order: $GRAPHSAFE_CUDA_FRONTEND (the module, or its directory), next to the
// running executable (the build tree, or both copied together), PREFIX/lib/graphsafe for a binary
// installed in PREFIX/bin, then where this build tree put it. The build tree's path is compiled
// in, so it is used only by a binary that runs from inside that build tree (the test binaries in
// its subdirectories): an installed or copied binary never picks up a module from the tree it
// was built in, which may be of another version by then, or gone.
std::vector<std::string> candidates() {
  std::vector<std::string> paths;
  if (const char* forced = std::getenv("GRAPHSAFE_CUDA_FRONTEND"); forced && *forced) {
    std::error_code error;
    fs::path path(forced);
    paths.push_back(fs::is_directory(path, error) ? (path / kModuleName).string() : path.string());
  }
  std::error_code error;
  fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (error) return paths;
  fs::path directory = self.parent_path();
  paths.push_back((directory / kModuleName).string());
  paths.push_back((directory / kInstalledModuleDir / kModuleName).lexically_normal().string());
#ifdef GRAPHSAFE_CUDA_MODULE_BUILD_PATH
  fs::path built(GRAPHSAFE_CUDA_MODULE_BUILD_PATH);
  std::error_code tree_error;
  std::error_code running_error;
  fs::path tree = fs::weakly_canonical(built.parent_path(), tree_error);
  fs::path running = fs::weakly_canonical(directory, running_error);
  if (!tree_error && !running_error && isWithin(running, tree) &&
      built != directory / kModuleName) {
    paths.push_back(built.string());
  }
#endif
  return paths;
}

// The module is opened once per process and never closed: frontends it creates live in it.
struct LoadedModule {
  CreateFrontend create = nullptr;
  std::string path;
  std::string error;
};

LoadedModule load() {
  LoadedModule module;
  std::string tried;
  for (const std::string& path : candidates()) {
    std::error_code error;
    if (!fs::exists(path, error)) {
      tried += (tried.empty() ? "" : ", ") + path;
      continue;
    }
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* reason = dlerror();
      module.error = "cannot load the CUDA C++ frontend " + path + ": " +
                     (reason != nullptr ? reason : "unknown error");
      return module;
    }
    module.create = reinterpret_cast<CreateFrontend>(dlsym(handle, kEntryPoint));
    if (module.create == nullptr) {
      module.error = path + " is not a graphsafe CUDA frontend module (no " + kEntryPoint + ")";
      return module;
    }
    module.path = path;
    return module;
  }
  module.error = std::string(kModuleName) +
                 " (the C++ frontend) was not found next to the graphsafe binary or in "
                 "GRAPHSAFE_CUDA_FRONTEND (looked for " +
                 (tried.empty() ? std::string("it nowhere") : tried) +
                 "); install it with graphsafe: `pip install graphsafe-cuda` of graphsafe's "
                 "version, the graphsafe-cuda Debian package, or PREFIX/lib/graphsafe/ for "
                 "PREFIX/bin/graphsafe (a build configured with -DGRAPHSAFE_CUDA_FRONTEND=ON)";
  return module;
}

// The module is opened once per process (the first C++ file that matters).
std::once_flag module_once;
LoadedModule loaded_module;
std::atomic<bool> module_loaded{false};

}  // namespace

std::string loadedCudaFrontendModule() {
  return module_loaded.load() && loaded_module.create != nullptr ? loaded_module.path : std::string();
}

std::unique_ptr<Frontend> loadCudaFrontend(std::string& error) {
  std::call_once(module_once, [] {
    loaded_module = load();
    module_loaded = true;
  });
  if (loaded_module.create == nullptr) {
    error = loaded_module.error;
    return nullptr;
  }
  std::unique_ptr<Frontend> frontend(loaded_module.create(cudaFrontendAbi()));
  if (!frontend) {
    error = loaded_module.path + " was built from another version of graphsafe; rebuild it with this one";
    return nullptr;
  }
  // Clang runs out of process: a translation unit that crashes it costs only its own file.
  return isolateFrontend(std::move(frontend));
}

}  // namespace graphsafe
