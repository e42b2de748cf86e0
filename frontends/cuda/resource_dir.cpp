#include "frontends/cuda/resource_dir.h"

#include <dlfcn.h>

#include <filesystem>
#include <system_error>

#ifndef GRAPHSAFE_CLANG_RESOURCE_DIR
#define GRAPHSAFE_CLANG_RESOURCE_DIR "/usr/lib/llvm-19/lib/clang/19"
#endif

namespace graphsafe::cuda {

namespace {

std::string findResourceDir() {
  Dl_info info{};
  // Any function of this module names the file it was loaded from.
  if (dladdr(reinterpret_cast<void*>(&findResourceDir), &info) != 0 && info.dli_fname != nullptr) {
    std::filesystem::path shipped =
        std::filesystem::path(info.dli_fname).parent_path() / "clang";
    std::error_code ec;
    if (std::filesystem::is_directory(shipped / "include", ec)) return shipped.string();
  }
  return GRAPHSAFE_CLANG_RESOURCE_DIR;
}

}  // namespace

const std::string& clangResourceDir() {
  static const std::string dir = findResourceDir();
  return dir;
}

}  // namespace graphsafe::cuda
