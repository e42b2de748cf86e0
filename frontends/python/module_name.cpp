#include "frontends/python/module_name.h"

#include <filesystem>
#include <system_error>
#include <vector>

namespace graphsafe::python {

namespace {

bool hasInit(const std::filesystem::path& directory) {
  std::error_code error;
  return std::filesystem::is_regular_file(directory / "__init__.py", error) ||
         std::filesystem::is_regular_file(directory / "__init__.pyi", error);
}

// A package directory name must be an identifier to be importable.
bool isIdentifier(const std::string& name) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    auto c = static_cast<unsigned char>(name[i]);
    bool ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80 ||
              (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

// Package nesting deeper than this is not real code; stop walking up.
constexpr int kMaxPackageDepth = 64;

// A directory that holds a project's own configuration or history is where imports start: it
// is no package, and nothing above it is part of a module name.
bool isProjectRoot(const std::filesystem::path& directory) {
  std::error_code error;
  for (const char* marker : {"pyproject.toml", "setup.py", "setup.cfg", ".git"}) {
    if (std::filesystem::exists(directory / marker, error)) return true;
  }
  return false;
}

const std::filesystem::path& workingDirectory() {
  static const std::filesystem::path cwd = [] {
    std::error_code error;
    std::filesystem::path current = std::filesystem::current_path(error);
    return error ? std::filesystem::path() : current;
  }();
  return cwd;
}

}  // namespace

ModuleName moduleNameForPath(std::string_view path) {
  namespace fs = std::filesystem;
  ModuleName result;
  fs::path file{std::string(path)};
  std::string stem = file.filename().string();
  for (std::string_view suffix : {".pyi", ".py"}) {
    if (stem.size() > suffix.size() && stem.ends_with(suffix)) {
      stem.resize(stem.size() - suffix.size());
      break;
    }
  }
  std::error_code error;
  fs::path directory = fs::absolute(file, error).parent_path();
  if (error) directory = file.parent_path();

  std::vector<std::string> parts;
  if (stem == "__init__") {
    result.is_package = true;
  } else {
    parts.push_back(stem);
  }
  // A file whose directory has no __init__.py is in a namespace package (PEP 420) or is a
  // script: its name climbs through the directories above it as far as the project's root
  // (a directory with pyproject.toml, setup.py, setup.cfg or .git, or the working directory),
  // so that `nanovllm/engine/model_runner.py` is nanovllm.engine.model_runner whether or not
  // engine/ has an __init__.py. A regular package's name stops where its __init__ files do.
  const bool namespace_package = !result.is_package && !hasInit(directory);
  const fs::path& cwd = workingDirectory();
  for (int depth = 0; depth < kMaxPackageDepth && !directory.empty(); ++depth) {
    std::string name = directory.filename().string();
    if (!isIdentifier(name)) break;
    if (namespace_package) {
      // Only directories that exist: a path made up for an editor buffer names just its file.
      if (directory == cwd || isProjectRoot(directory) || !fs::is_directory(directory, error)) {
        break;
      }
    } else if (!hasInit(directory)) {
      break;
    }
    parts.push_back(name);
    fs::path parent = directory.parent_path();
    if (parent == directory) break;
    directory = parent;
  }
  if (parts.empty() && result.is_package) {
    // An __init__.py whose directory is not a package name: name it after the directory.
    parts.push_back(file.parent_path().filename().string());
  }
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    if (it->empty()) continue;
    if (!result.dotted.empty()) result.dotted.push_back('.');
    result.dotted += *it;
  }
  return result;
}

std::string relativeImportBase(const ModuleName& module, int level) {
  std::string base = module.dotted;
  // From a plain module, one dot means its package; from a package, the package itself.
  int strip = module.is_package ? level - 1 : level;
  for (int i = 0; i < strip; ++i) {
    std::size_t dot = base.rfind('.');
    if (dot == std::string::npos) return {};
    base.resize(dot);
  }
  return base;
}

}  // namespace graphsafe::python
