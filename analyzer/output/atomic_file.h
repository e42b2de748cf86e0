#pragma once

#include <string>
#include <string_view>

namespace graphsafe {

// Writes `content` to `path` so that readers see the old file or the new one, never a part:
// a temporary file in the same directory, flushed, then renamed over `path`. An existing
// file's permissions are kept. Returns false with a one-line `error` on failure, leaving `path`
// untouched.
bool writeFileAtomically(const std::string& path, std::string_view content, std::string& error);

}  // namespace graphsafe
