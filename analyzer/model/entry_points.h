#pragma once

// Matching the capture entry points a configuration declares against the functions of a
// program, for both languages: the frontends open a whole-function region on each match, and
// the engine names the entry points that matched nothing.

#include <string>
#include <string_view>
#include <vector>

#include "analyzer/model/capture_model.h"

namespace graphsafe {

// Does a Python entry point name the function `qualified` of module `module`? Accepted:
// `module.qualified` and `module:qualified`; the qualified name alone; a nested function as
// `outer.<locals>.inner` or `outer.inner`; and a dotted name (two parts or more) that ends the
// function's full name or that the full name ends, at a dot: the analysis names a module from
// the nearest directory without an `__init__.py` (a namespace package, a `src/` layout), which
// may cut or add a leading package the configuration spells otherwise.
bool pythonEntryPointMatches(std::string_view entry, std::string_view module,
                             std::string_view qualified);

// Does a C++ entry point (`ns::Class::method`, `Class::method` or a plain name) name the
// function `qualified_name` (plain name `name`)? Dotted (Python) names never match.
bool cudaEntryPointMatches(std::string_view entry, std::string_view qualified_name,
                           std::string_view name);

// The entry points that name no function of the lowered files, in the order given.
std::vector<std::string> unmatchedEntryPoints(const std::vector<std::string>& entries,
                                              const std::vector<FileModel>& files);

}  // namespace graphsafe
