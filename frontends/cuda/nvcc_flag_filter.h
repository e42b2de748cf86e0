#pragma once

#include <string>
#include <vector>

namespace graphsafe::cuda {

// From a compile command (compile_commands.json: nvcc, gcc, clang, with their flags), keeps only
// what changes how the source parses: include directories, forced includes, macro definitions
// and the language standard. Everything else (-gencode, --expt-relaxed-constexpr, -Xcompiler,
// optimization, output and dependency flags) is dropped, so that nvcc-only flags never reach
// Clang. nvcc's long spellings (--include-path, --define-macro, --system-include, ...) become
// their short forms; relative paths are made absolute against `directory`.
// `command` is the whole command line: compiler first; the source file may be among the rest.
std::vector<std::string> keepParsingFlags(const std::vector<std::string>& command,
                                          const std::string& directory);

// Arguments given on the command line (`--extra-arg`), kept as they are but for the paths of
// include and forced-include flags, made absolute against `directory` (where graphsafe runs), as
// clang-tidy reads them: `--extra-arg=-Iinclude` means the same directory for every file,
// whichever directory its compile command runs in.
std::vector<std::string> withAbsolutePaths(const std::vector<std::string>& args,
                                           const std::string& directory);

}  // namespace graphsafe::cuda
