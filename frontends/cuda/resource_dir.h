#pragma once

// Clang's resource directory (its own headers: <stddef.h>, the CUDA wrappers) for the Clang
// this module was linked with.

#include <string>

namespace graphsafe::cuda {

// `clang/` next to the module when it is there (a module with Clang linked in carries the
// headers of its own version: the wheel, the packages, `cmake --install`), else the directory
// of the Clang installation the module was built against (the build tree).
const std::string& clangResourceDir();

}  // namespace graphsafe::cuda
