#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace graphsafe {

// What frontends need from the configuration. Kept separate from the CLI's options so a
// frontend never depends on how settings were given (flags, .graphsafe.yaml, LSP).
struct AnalysisSettings {
  // Qualified names of functions the user declares as running under capture.
  std::vector<std::string> capture_entry_points;
  // Extra host-synchronizing APIs (qualified names, or ".method" for any receiver).
  std::vector<std::string> extra_sync_apis;
  // Files larger than this are skipped with a notice.
  std::size_t max_file_bytes = 8u << 20;
};

}  // namespace graphsafe
