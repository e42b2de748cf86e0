#pragma once

#include <string>
#include <vector>

#include "analyzer/model/capture_model.h"

namespace graphsafe {

// Expands the user's paths into the files to analyze, sorted and unique. Directories are walked
// recursively, skipping version control directories (.git, .hg, .svn, ...), virtualenvs (a
// pyvenv.cfg), CMake build trees (a CMakeCache.txt), caches (__pycache__, .mypy_cache, ...),
// installed packages (node_modules, site-packages), and whatever the .gitignore files on the
// way (and `exclude`) exclude. A file named explicitly is analyzed if a frontend handles its
// extension, whatever the ignore files say; with `force_exclude`, `exclude` applies to the named
// paths too (Ruff's --force-exclude, for pre-commit, which names every staged file). Symlink
// loops, unreadable directories and vanished paths become notices.
std::vector<std::string> collectFiles(const std::vector<std::string>& paths,
                                      const std::vector<std::string>& exclude,
                                      std::vector<Notice>& notices, bool force_exclude = false);

// Which frontend handles a path, by extension.
bool isPythonPath(const std::string& path);
bool isCudaPath(const std::string& path);

}  // namespace graphsafe
