#include "analyzer/engine/program_model.h"

namespace graphsafe {

ProgramModel::ProgramModel(std::vector<FileModel> files) : files_(std::move(files)) {
  // The order of files is sorted, so "first definition wins" is deterministic.
  for (const FileModel& file : files_) {
    index_.add(file);
    for (const FunctionModel& function : file.functions) {
      for (const ContextBlock& block : function.contexts) {
        context_kinds_ |= 1u << static_cast<unsigned>(block.kind);
      }
    }
  }
}

FunctionRef ProgramModel::findFunction(std::string_view qualified_name) const {
  return index_.resolve(qualified_name);
}

FunctionRef ProgramModel::resolveCall(const FileModel& file, const Event& call) const {
  if (call.callee != kNoFunction && call.callee < file.functions.size()) {
    return {&file, &file.functions[call.callee]};
  }
  if (!call.callee_qualified.empty()) return findFunction(call.callee_qualified);
  return {};
}

FunctionRef ProgramModel::regionFunction(const FileModel& file, const CaptureRegion& region) const {
  if (region.function != kNoFunction && region.function < file.functions.size()) {
    return {&file, &file.functions[region.function]};
  }
  if (!region.target_qualified.empty()) return findFunction(region.target_qualified);
  return {};
}

}  // namespace graphsafe
