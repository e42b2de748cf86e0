#pragma once

// The why of a finding as lines for formats that carry only a message (GitHub annotations,
// GitLab code quality): its capture site and each call on the path, `path:line:col: note`, as
// the text output's notes say them. Long paths are shortened in the middle so that a message
// stays within what those formats show.

#include <cstddef>
#include <string>
#include <vector>

#include "analyzer/diagnostics/diagnostic.h"

namespace graphsafe {

// One line per related location, columns in code points. With more than `max_lines` of them,
// the first and the last halves are kept around one line saying how many calls were left out.
std::vector<std::string> callPathLines(const Diagnostic& diagnostic, std::size_t max_lines);

}  // namespace graphsafe
