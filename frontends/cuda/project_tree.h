#pragma once

#include <filesystem>
#include <string>

namespace graphsafe::cuda {

// The tree a file belongs to: the nearest directory above it holding .git, else the working
// directory when the file is under it, else the file's own directory. An error inside a file
// outside the analyzed file's tree (a toolkit header, a file a hostile #include names) is
// counted, never quoted; a library's namespace declared inside it is the project's own code.
std::filesystem::path projectTreeOf(const std::string& absolute_path);

bool isUnder(const std::string& path, const std::filesystem::path& tree);

}  // namespace graphsafe::cuda
