#include "frontends/cuda/project_tree.h"

namespace graphsafe::cuda {

std::filesystem::path projectTreeOf(const std::string& absolute_path) {
  namespace fs = std::filesystem;
  fs::path file = fs::path(absolute_path).lexically_normal();
  for (fs::path dir = file.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    std::error_code error;
    if (fs::exists(dir / ".git", error)) return dir;
    if (dir == dir.root_path()) break;
  }
  std::error_code error;
  fs::path cwd = fs::current_path(error);
  if (!error && !cwd.empty()) {
    auto relative = file.lexically_relative(cwd);
    if (!relative.empty() && *relative.begin() != "..") return cwd;
  }
  return file.parent_path();
}

bool isUnder(const std::string& path, const std::filesystem::path& tree) {
  auto relative = std::filesystem::path(path).lexically_normal().lexically_relative(tree);
  return !relative.empty() && *relative.begin() != "..";
}

}  // namespace graphsafe::cuda
