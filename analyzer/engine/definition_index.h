#pragma once

// Definitions of the analyzed files by qualified name ("pkg.module.func",
// "pkg.module.Class.method"), and the resolution of a dotted name through the re-exports on its
// way: `pkg.f` where pkg/__init__.py does `from .impl import f` or `from .impl import *`.

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analyzer/model/capture_model.h"

namespace graphsafe {

struct FunctionRef {
  const FileModel* file = nullptr;
  const FunctionModel* function = nullptr;
  explicit operator bool() const { return function != nullptr; }
};

class DefinitionIndex {
 public:
  // Re-export chains longer than this are not followed (and cycles end here).
  static constexpr int kMaxHops = 8;

  // Indexes a file's functions and its module name. The first definition of a name wins: add
  // files in a fixed order for deterministic results.
  void add(const FileModel& file);

  // The function `qualified` names, or none. When `missing` is given, every module prefix of a
  // name that was looked for and is not indexed is appended to it (the engine analyzes those
  // files, when the run has them, and asks again).
  FunctionRef resolve(std::string_view qualified,
                      std::vector<std::string>* missing = nullptr) const;

 private:
  FunctionRef resolve(const std::string& qualified, std::vector<std::string>* missing,
                      int hops) const;

  std::unordered_map<std::string, FunctionRef> by_name_;
  std::unordered_map<std::string, const FileModel*> modules_;
};

}  // namespace graphsafe
