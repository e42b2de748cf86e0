#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace graphsafe {

// `graphsafe callgraph PATH...`: the resolved call graph of the given files as JSON, in PyCG's
// form (caller -> callees). A debugging and measurement command: every file is lowered, no
// rule runs. Returns the exit code (0, or 2 for a path that does not exist).
int runCallGraphCommand(const std::vector<std::string>& paths, std::ostream& out,
                        std::ostream& err);

}  // namespace graphsafe
