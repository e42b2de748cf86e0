#pragma once

// The modules a Python file imports, read lexically (no parse): `import a.b`, `from a.b import
// c`, `from ..x import y`, including parenthesized lists over several lines. What it returns
// is a superset to look up (`from a import b` names both `a` and `a.b`, since b may be a
// submodule); a name in a string or a comment that looks like an import may be included too.

#include <string>
#include <string_view>
#include <vector>

#include "frontends/python/module_name.h"

namespace graphsafe::python {

std::vector<std::string> lexicalImports(std::string_view text, const ModuleName& module);

}  // namespace graphsafe::python
