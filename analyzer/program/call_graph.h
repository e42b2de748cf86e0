#pragma once

// The resolved call graph of a program, in PyCG's simple form: every function (and every
// module's top-level code, named after the module) mapped to what it calls. Functions are
// named `module.Class.method`, nested ones without `<locals>` (`module.outer.inner`), lambdas
// `<lambdaN>` by their order in the enclosing scope; library code by its dotted name, builtins
// as `<builtin>.name`. `graphsafe callgraph` prints it; bench/pycg measures it against PyCG's
// expected graphs.

#include <map>
#include <set>
#include <string>

#include "analyzer/program/program_model.h"

namespace graphsafe {

using CallGraph = std::map<std::string, std::set<std::string>>;

CallGraph callGraph(const ProgramModel& program);

}  // namespace graphsafe
