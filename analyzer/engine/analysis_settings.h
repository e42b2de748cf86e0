#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace graphsafe {

// What frontends need from the configuration. Kept separate from the CLI's options so a
// frontend never depends on how settings were given (flags, .graphsafe.yaml, LSP).
// Every field also enters the result cache's key: runCacheKey() in result_cache.cpp.
struct AnalysisSettings {
  // Qualified names of functions the user declares as running under capture.
  std::vector<std::string> capture_entry_points;
  // Extra host-synchronizing APIs (qualified names, or ".method" for any receiver).
  std::vector<std::string> extra_sync_apis;
  // Calls whose host-side state changes when they run, reported under capture as GS107 besides
  // the built-in ones (same spellings as extra_sync_apis).
  std::vector<std::string> extra_state_apis;
  // Names that hold or return "is the stream being captured?" besides
  // torch.cuda.is_current_stream_capturing() (qualified names, or ".attr" for any object).
  std::vector<std::string> capture_flags;
  // Environment variables the analysis takes as set (name, value); every other one is unset.
  // Decides `os.environ.get(...)` / `os.getenv(...)` / `"X" in os.environ` conditions.
  std::vector<std::pair<std::string, std::string>> environment;
  // Files larger than this are skipped with a notice.
  std::size_t max_file_bytes = 8u << 20;
  // Per-file guards of the parse: one that runs longer, or whose syntax tree grows larger, is
  // cancelled and the file skipped with a notice. Real code needs 15-25 bytes of tree per byte
  // of source; dense generated text up to 300.
  std::uint32_t parse_timeout_ms = 10'000;  // of the parsing thread's CPU time
  std::size_t max_parse_memory_bytes = std::size_t{512} << 20;
  // Keep each Python file's syntax tree and reparse the next version of it incrementally (the
  // language server, where the same documents are analyzed after every edit).
  bool reuse_syntax_trees = false;

  // C++: show the compiler's own errors about the analyzed code as notices (normally hidden:
  // they are not graphsafe's findings, and a missing header must not stop the analysis).
  bool show_compiler_errors = false;
  // C++: a directory holding compile_commands.json (`-p`); "" = look upward from each file.
  std::string compile_commands_dir;
  // C++: the CUDA toolkit root (`--cuda-path`); "" = detect, "none" = use the built-in
  // declarations as on a machine without CUDA.
  std::string cuda_path;
  // C++: arguments added to every compile command, before the compiler's own (`--extra-arg-before`)
  // and after them (`--extra-arg`), as clang-tidy takes them: `-DUSE_CUDA_GRAPH`, `-I...`.
  std::vector<std::string> extra_args_before;
  std::vector<std::string> extra_args;
  // C++: the bounds of one translation unit's analysis, which runs in a process of its own: its
  // wall time and the memory it may add (0 = no bound). A file past either is skipped with a
  // notice naming the bound; the rest of the run goes on.
  std::uint32_t cxx_timeout_ms = 60'000;
  std::size_t cxx_memory_bytes = std::size_t{4} << 30;
};

}  // namespace graphsafe
