#pragma once

#include <string_view>

namespace graphsafe::cuda {

// Is this C++ reachable from PyTorch? It includes torch/, ATen/ or c10/ headers, or registers
// operators (TORCH_LIBRARY..., or PYBIND11_MODULE in a file that mentions torch). Work it
// launches runs inside whatever capture the Python caller started, so it must go to the current
// stream even where no capture is visible (GS304).
bool isExtensionCode(std::string_view text);

// Is this a unit-test program (it includes gtest, gmock, Catch2, doctest or Boost.Test)? It runs
// as an executable of its own, not inside PyTorch's calls, so it is not extension code even when
// it includes torch headers to build its inputs.
bool isTestProgram(std::string_view text);

// Is `spelled`, as an #include names it, a PyTorch header (torch/, ATen/, c10/)?
bool isTorchHeader(std::string_view spelled);

}  // namespace graphsafe::cuda
