#include "analyzer/program/program_index.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

namespace graphsafe::program {

namespace {

// Path components taken into a module's suffixes at most: deeper packages are still found by
// their exact name.
constexpr std::size_t kMaxSuffixDepth = 8;

bool isIdentifier(std::string_view name) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    auto c = static_cast<unsigned char>(name[i]);
    bool ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80 ||
              (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

// The module path of a file, innermost last: "a/b/c.py" -> a, b, c; "a/b/__init__.py" -> a, b.
// Stops (from the end) at the first component that is no identifier.
std::vector<std::string_view> pathComponents(std::string_view path) {
  std::vector<std::string_view> parts;
  std::size_t end = path.size();
  for (std::string_view suffix : {".pyi", ".py"}) {
    if (path.ends_with(suffix)) {
      end -= suffix.size();
      break;
    }
  }
  std::string_view rest = path.substr(0, end);
  bool first = true;
  while (!rest.empty() && parts.size() <= kMaxSuffixDepth) {
    std::size_t slash = rest.find_last_of('/');
    std::string_view part = slash == std::string_view::npos ? rest : rest.substr(slash + 1);
    rest = slash == std::string_view::npos ? std::string_view{} : rest.substr(0, slash);
    if (first && part == "__init__") {
      first = false;
      continue;
    }
    first = false;
    if (!isIdentifier(part)) break;
    parts.push_back(part);
  }
  std::reverse(parts.begin(), parts.end());
  return parts;
}

std::size_t commonDirectoryLength(std::string_view a, std::string_view b) {
  std::size_t common = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size() && a[i] == b[i]; ++i) {
    if (a[i] == '/') common = i + 1;
  }
  return common;
}

}  // namespace

ProgramIndex::ProgramIndex(const std::vector<FileModel>& files) : files_(files) {
  function_offsets_.reserve(files.size() + 1);
  class_offsets_.reserve(files.size() + 1);
  std::uint32_t functions = 0;
  std::uint32_t classes = 0;
  for (std::uint32_t i = 0; i < files.size(); ++i) {
    function_offsets_.push_back(functions);
    class_offsets_.push_back(classes);
    functions += static_cast<std::uint32_t>(files[i].functions.size());
    classes += static_cast<std::uint32_t>(files[i].classes.size());
    if (files[i].language == Language::kCuda) {
      for (FunctionId f = 0; f < files[i].functions.size(); ++f) {
        cpp_functions_[files[i].functions[f].qualified_name].push_back(functionId(i, f));
      }
      continue;
    }
    if (files[i].language != Language::kPython) continue;
    const std::string& name = files[i].module_name;
    if (!name.empty()) {
      exact_[name].push_back(i);
      for (std::size_t dot = name.find('.'); dot != std::string::npos;
           dot = name.find('.', dot + 1)) {
        packages_.emplace(name.substr(0, dot), true);
      }
    }
    // Every tail of the path is a name the module may be imported by (the import root is not
    // known); every run of directories inside it is a package.
    std::vector<std::string_view> parts =
        pathComponents(files[i].source ? std::string_view(files[i].source->path()) : "");
    for (std::size_t start = 0; start < parts.size(); ++start) {
      std::string dotted;
      for (std::size_t k = start; k < parts.size(); ++k) {
        if (!dotted.empty()) dotted.push_back('.');
        dotted += parts[k];
        if (k + 1 < parts.size()) packages_.emplace(dotted, true);
      }
      suffixes_[dotted].push_back(i);
    }
  }
  function_offsets_.push_back(functions);
  class_offsets_.push_back(classes);
  // C++: a call through a function pointer member or variable reaches each function stored
  // into it, in any file of the program; what is stored may be another holder (a callable
  // parameter handed on to the next function), followed a few holders deep.
  constexpr int kMaxHolderChain = 8;
  std::map<std::string, std::set<std::uint32_t>> held;
  for (int round = 0; round < kMaxHolderChain; ++round) {
    bool grew = false;
    for (const FileModel& file : files) {
      for (const auto& [holder, target] : file.cpp_aliases) {
        if (holder == target) continue;
        std::set<std::uint32_t>& into = held[holder];
        if (auto it = cpp_functions_.find(target); it != cpp_functions_.end()) {
          for (std::uint32_t function : it->second) grew = into.insert(function).second || grew;
        }
        if (auto it = held.find(target); it != held.end() && it->first != holder) {
          for (std::uint32_t function : it->second) grew = into.insert(function).second || grew;
        }
      }
    }
    if (!grew) break;
  }
  for (const auto& [holder, stored] : held) {
    std::vector<std::uint32_t>& targets = cpp_functions_[holder];
    for (std::uint32_t function : stored) {
      if (std::find(targets.begin(), targets.end(), function) == targets.end()) {
        targets.push_back(function);
      }
    }
  }
}

const std::vector<std::uint32_t>& ProgramIndex::cppFunctions(std::string_view qualified) const {
  static const std::vector<std::uint32_t> none;
  auto it = cpp_functions_.find(std::string(qualified));
  return it == cpp_functions_.end() ? none : it->second;
}

std::uint32_t ProgramIndex::functionFile(std::uint32_t id) const {
  auto it = std::upper_bound(function_offsets_.begin(), function_offsets_.end() - 1, id);
  return static_cast<std::uint32_t>(it - function_offsets_.begin() - 1);
}

std::uint32_t ProgramIndex::classFile(std::uint32_t id) const {
  auto it = std::upper_bound(class_offsets_.begin(), class_offsets_.end() - 1, id);
  return static_cast<std::uint32_t>(it - class_offsets_.begin() - 1);
}

std::uint32_t ProgramIndex::nearest(const std::vector<std::uint32_t>& candidates,
                                    std::uint32_t from) const {
  if (candidates.size() == 1 || from >= files_.size() || !files_[from].source) {
    return candidates.front();
  }
  const std::string& origin = files_[from].source->path();
  std::uint32_t best = candidates.front();
  std::size_t best_common = 0;
  for (std::uint32_t candidate : candidates) {
    if (!files_[candidate].source) continue;
    std::size_t common = commonDirectoryLength(origin, files_[candidate].source->path());
    if (common > best_common) {
      best = candidate;
      best_common = common;
    }
  }
  return best;
}

std::uint32_t ProgramIndex::moduleFile(std::string_view dotted, std::uint32_t from) const {
  auto exact = exact_.find(std::string(dotted));
  if (exact != exact_.end()) return nearest(exact->second, from);
  auto suffix = suffixes_.find(std::string(dotted));
  if (suffix == suffixes_.end()) return kNoId;
  if (dotted.find('.') != std::string_view::npos) return nearest(suffix->second, from);
  // One name (`import utils`) matches a file by its path only beside the importer: elsewhere
  // in the tree it would as likely be a library module of the same name (`random`, `logging`).
  if (from >= files_.size() || !files_[from].source) return kNoId;
  std::string_view origin = files_[from].source->path();
  std::string_view directory = origin.substr(0, origin.rfind('/') + 1);
  for (std::uint32_t candidate : suffix->second) {
    if (!files_[candidate].source) continue;
    std::string_view path = files_[candidate].source->path();
    std::string_view own = path.substr(0, path.rfind('/') + 1);
    bool package_init = path.ends_with("/__init__.py") || path.ends_with("/__init__.pyi");
    std::string_view parent = own.substr(0, own.empty() ? 0 : own.rfind('/', own.size() - 2) + 1);
    if (own == directory || (package_init && parent == directory)) return candidate;
  }
  return kNoId;
}

bool ProgramIndex::isPackage(std::string_view dotted) const {
  return packages_.contains(std::string(dotted));
}

}  // namespace graphsafe::program
