#pragma once

#include <string>
#include <vector>

#include "analyzer/model/capture_model.h"

namespace graphsafe {

// Expands the user's paths into the files to analyze, sorted and unique. Directories are walked
// recursively, skipping .git, virtualenvs, build and cache directories, and whatever the
// .gitignore files on the way (and `exclude`) exclude. A file named explicitly is always
// analyzed if a frontend handles its extension. Symlink loops, unreadable directories and
// vanished paths become notices.
std::vector<std::string> collectFiles(const std::vector<std::string>& paths,
                                      const std::vector<std::string>& exclude,
                                      std::vector<Notice>& notices);

// Which frontend handles a path, by extension.
bool isPythonPath(const std::string& path);
bool isCudaPath(const std::string& path);

}  // namespace graphsafe
