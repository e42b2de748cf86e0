#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace graphsafe::cuda {

// From a compile command (compile_commands.json: nvcc, gcc, clang, with their flags), keeps only
// what changes how the source parses: include directories, forced includes, macro definitions
// and the language standard. Everything else (-gencode, --expt-relaxed-constexpr, -Xcompiler,
// optimization, output and dependency flags) is dropped, so that nvcc-only flags never reach
// Clang. nvcc's long spellings (--include-path, --define-macro, --system-include, ...) become
// their short forms; relative paths are made absolute against `directory`.
// `command` is the whole command line: compiler first; the source file may be among the rest.
struct ParsingFlags {
  std::vector<std::string> flags;
  // The GPU architectures the command compiles for (`-arch=sm_80`, `-gencode
  // arch=compute_90a,code=...`, `--cuda-gpu-arch=sm_80`, `--offload-arch=sm_80`), as Clang spells
  // them ("sm_80", "sm_90a"), lowest first; empty when it names none (or only `native`, `all`).
  std::vector<std::string> gpu_archs;
  // Flags left out because their value holds a line break or another control character: Clang
  // writes `-DX=v` as `#define X v` and `-include f` as `#include "f"`, each on a line of its
  // own, so a line break would put preprocessor directives of the database's choosing into every
  // parse (`-DX=1\n#include "/etc/passwd"`). Each as "-DX" or "-include", control characters
  // shown as `?`.
  std::vector<std::string> rejected;
};

ParsingFlags keepParsingFlags(const std::vector<std::string>& command,
                              const std::string& directory);

// "sm_80", "sm_90a" -> 80, 90: the number nvcc's __CUDA_ARCH__ divides by ten; 0 when the
// spelling holds none.
int gpuArchNumber(std::string_view arch);

// Arguments given on the command line (`--extra-arg`), kept as they are but for the paths of
// include and forced-include flags, made absolute against `directory` (where graphsafe runs), as
// clang-tidy reads them: `--extra-arg=-Iinclude` means the same directory for every file,
// whichever directory its compile command runs in.
std::vector<std::string> withAbsolutePaths(const std::vector<std::string>& args,
                                           const std::string& directory);

}  // namespace graphsafe::cuda
