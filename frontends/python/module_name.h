#pragma once

#include <string>
#include <string_view>

namespace graphsafe::python {

struct ModuleName {
  std::string dotted;       // "pkg.sub.mod"; "" when the path has no usable stem
  bool is_package = false;  // the file is a package's __init__.py(i)
};

// The dotted module name of a Python file: its stem, prefixed with every enclosing directory
// that holds an __init__.py (or __init__.pyi). A few stat calls per file; a path that does
// not exist on disk (an editor buffer, a test) yields just its stem.
ModuleName moduleNameForPath(std::string_view path);

// The package a relative import of `level` dots starts from ("" when it climbs past the root).
std::string relativeImportBase(const ModuleName& module, int level);

}  // namespace graphsafe::python
