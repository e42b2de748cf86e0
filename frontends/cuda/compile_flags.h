#pragma once

#include <cstdint>
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
// Included after the CUDA headers of a CUDA parse (the toolkit's through Clang's wrapper, or the
// built-in declarations): it takes back what Clang defines and nvcc does not (`__CUDA__`), so that
// code telling the two apart (CUTLASS's CUTLASS_CLANG_CUDA, which turns its SM100 code off) is
// read as nvcc compiles it.
inline constexpr std::string_view kNvccViewHeader = "/__graphsafe__/shim/nvcc_view.h";
inline constexpr std::string_view kNvccViewText =
    "#pragma once\n// nvcc's host pass does not define Clang's own CUDA macro.\n#undef __CUDA__\n";

// How to parse one file: the Clang command line (driver name first, the file last) and the
// directory relative paths are resolved against.
struct CompileCommand {
  std::vector<std::string> arguments;
  std::string directory;
  bool cuda = false;           // parsed as CUDA (host side) rather than plain C++
  bool from_database = false;  // flags came from compile_commands.json
  std::string database;        // the compile_commands.json they came from
  // Where a file absent from the database got its flags: the unit that includes it (a header,
  // as clangd infers a header's command), else the entry interpolation found most similar.
  enum class Borrowed : std::uint8_t { kNo, kIncluder, kInterpolated } borrowed = Borrowed::kNo;
  std::string includer;                // kIncluder: that unit's file
  bool includer_extension = false;     // kIncluder: that unit is reachable from PyTorch
  std::vector<std::string> gpu_archs;  // from the command's -arch/-gencode flags ("sm_80")
  CudaToolkit toolkit;
  // About this file's command, for the file's notices (flags left out, and why), and about the
  // run's settings, said once per run however many files meet it.
  std::vector<std::string> notices;
  std::vector<std::string> run_notices;
};

// Flags from compile_commands.json (in settings.compile_commands_dir, else the nearest one found
// walking up from the file, also in a build/ subdirectory; a header absent from it takes the
// command of a unit that includes it, any other absent file the flags of the most similar
// entry), filtered to what matters for parsing; otherwise built-in defaults. Then the
// frontend's own flags: host-side CUDA parse, the toolkit or the built-in declarations, the
// macros nvcc defines for that toolkit (__CUDACC__, __NVCC__, __CUDACC_VER_MAJOR__/MINOR__/
// BUILD__, __CUDA_ARCH_LIST__ from the command's architectures), the torch stand-in after
// every other include directory, errors never fatal, no warnings.
CompileCommand compileCommandFor(const std::string& absolute_path, std::string_view text,
                                 const AnalysisSettings& settings);

// Is this file parsed as CUDA? .cu/.cuh always; other C++ files when they launch kernels or
// declare them (the text has `<<<` or `__global__`).
bool parseAsCuda(std::string_view path, std::string_view text);

}  // namespace graphsafe::cuda
