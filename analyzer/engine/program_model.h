#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analyzer/engine/definition_index.h"
#include "analyzer/model/capture_model.h"

namespace graphsafe {

// Every file of the run's model, and an index of definitions by qualified name
// ("pkg.module.func", "pkg.module.Class.method") for calls across files, resolved through
// re-exports (a package's __init__ importing from its submodules, `from m import *`).
class ProgramModel {
 public:
  explicit ProgramModel(std::vector<FileModel> files);

  const std::vector<FileModel>& files() const { return files_; }
  FunctionRef findFunction(std::string_view qualified_name) const;
  // The function a call event reaches: same file by id, else through the index.
  FunctionRef resolveCall(const FileModel& file, const Event& call) const;
  FunctionRef regionFunction(const FileModel& file, const CaptureRegion& region) const;
  // Does any function of the program open a block of this kind (autocast, stream, ...)? Known
  // once for the run, so that a check can skip its search everywhere when there is none.
  bool hasContext(ContextBlock::Kind kind) const {
    return (context_kinds_ & (1u << static_cast<unsigned>(kind))) != 0;
  }

 private:
  std::vector<FileModel> files_;
  DefinitionIndex index_;
  unsigned context_kinds_ = 0;
};

}  // namespace graphsafe
