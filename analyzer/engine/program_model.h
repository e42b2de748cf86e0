#pragma once

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

// Every analyzed file's model, and an index of definitions by qualified name
// ("pkg.module.func", "pkg.module.Class.method") for calls across files.
class ProgramModel {
 public:
  explicit ProgramModel(std::vector<FileModel> files);

  const std::vector<FileModel>& files() const { return files_; }
  FunctionRef findFunction(std::string_view qualified_name) const;
  // The function a call event reaches: same file by id, else through the index.
  FunctionRef resolveCall(const FileModel& file, const Event& call) const;
  FunctionRef regionFunction(const FileModel& file, const CaptureRegion& region) const;

 private:
  std::vector<FileModel> files_;
  std::unordered_map<std::string, FunctionRef> by_name_;
};

}  // namespace graphsafe
