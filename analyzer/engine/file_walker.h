#pragma once

#include <cstddef>
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
// loops, unreadable directories and vanished paths become notices. A symbolic link met in a
// walk, to a directory or a file, is followed only when it leads to a place inside the
// repository (or, outside one, the walked root): a checkout's link to a file of the user's home
// is not the project's code.
// With `max_files` (0: no bound), a walk that finds more files than that, or reads eight times as
// many directories, stops and returns nothing, `stopped` set: a tree too large for the caller
// (the language server's workspace) is not walked whole.
std::vector<std::string> collectFiles(const std::vector<std::string>& paths,
                                      const std::vector<std::string>& exclude,
                                      std::vector<Notice>& notices, bool force_exclude = false,
                                      std::size_t max_files = 0, bool* stopped = nullptr);

// The trees a run over `paths` reads, whose content (symbolic links included) a repository's
// author chose: the working directory, each path's directory, and the repositories (a
// directory holding .git) they lie in. No write of the run follows a link out of them
// (LinkBoundary, analyzer/io/atomic_write.h).
std::vector<std::string> analyzedTrees(const std::vector<std::string>& paths);

// Which frontend handles a path, by extension.
bool isPythonPath(const std::string& path);
bool isCudaPath(const std::string& path);

}  // namespace graphsafe
