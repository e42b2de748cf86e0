#include "analyzer/engine/program_model.h"

namespace graphsafe {

ProgramModel::ProgramModel(std::vector<FileModel> files) : files_(std::move(files)) {
  for (const FileModel& file : files_) {
    for (const FunctionModel& function : file.functions) {
      if (function.is_module_level) continue;
      std::string name = file.module_name.empty()
                             ? function.qualified_name
                             : file.module_name + "." + function.qualified_name;
      // First definition wins: the order of files is sorted, so this is deterministic.
      by_name_.try_emplace(std::move(name), FunctionRef{&file, &function});
    }
  }
}

FunctionRef ProgramModel::findFunction(std::string_view qualified_name) const {
  auto it = by_name_.find(std::string(qualified_name));
  return it == by_name_.end() ? FunctionRef{} : it->second;
}

FunctionRef ProgramModel::resolveCall(const FileModel& file, const Event& call) const {
  if (call.callee != kNoFunction && call.callee < file.functions.size()) {
    return {&file, &file.functions[call.callee]};
  }
  if (!call.callee_qualified.empty()) return findFunction(call.callee_qualified);
  return {};
}

FunctionRef ProgramModel::regionFunction(const FileModel& file,
                                         const CaptureRegion& region) const {
  if (region.function != kNoFunction && region.function < file.functions.size()) {
    return {&file, &file.functions[region.function]};
  }
  if (!region.target_qualified.empty()) return findFunction(region.target_qualified);
  return {};
}

}  // namespace graphsafe
