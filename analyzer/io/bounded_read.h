#pragma once

// Reading a file the user names as an input (a configuration, a baseline, a SARIF log to
// merge): only a regular file, and only up to a bound. A FIFO would block the run forever,
// `/dev/zero` would fill memory; both are refused at once with a message naming the file.

#include <cstddef>
#include <string>

namespace graphsafe {

// The whole of `path` into `content`; false otherwise, with `error` the problem alone, for the
// caller to put after the file's name: "not a regular file (a FIFO)", "too large (5 MiB; the
// limit is 4 MiB)", "cannot read: Permission denied". Opening does not block.
bool readRegularFile(const std::string& path, std::size_t max_bytes, std::string& content,
                     std::string& error);

}  // namespace graphsafe
