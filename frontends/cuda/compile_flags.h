#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analyzer/engine/analysis_settings.h"
#include "frontends/cuda/cuda_toolkit.h"

namespace graphsafe::cuda {

// In-memory directories the frontend serves headers from.
inline constexpr std::string_view kBuiltinCudaDir = "/__graphsafe__/cuda";
inline constexpr std::string_view kBuiltinTorchDir = "/__graphsafe__/torch";
inline constexpr std::string_view kTextureShimDir = "/__graphsafe__/shim";

// How to parse one file: the Clang command line (driver name first, the file last) and the
// directory relative paths are resolved against.
struct CompileCommand {
  std::vector<std::string> arguments;
  std::string directory;
  bool cuda = false;           // parsed as CUDA (host side) rather than plain C++
  bool from_database = false;  // flags came from compile_commands.json
  std::string database;        // the compile_commands.json they came from
  CudaToolkit toolkit;
};

// Flags from compile_commands.json (in settings.compile_commands_dir, else the nearest one found
// walking up from the file, also in a build/ subdirectory; headers borrow the flags of a
// similar file), filtered to what matters for parsing; otherwise built-in defaults. Then the
// frontend's own flags: host-side CUDA parse, the toolkit or the built-in declarations, the
// torch stand-in after every other include directory, errors never fatal, no warnings.
CompileCommand compileCommandFor(const std::string& absolute_path, std::string_view text,
                                 const AnalysisSettings& settings);

// Is this file parsed as CUDA? .cu/.cuh always; other C++ files when they launch kernels or
// declare them (the text has `<<<` or `__global__`).
bool parseAsCuda(std::string_view path, std::string_view text);

}  // namespace graphsafe::cuda
