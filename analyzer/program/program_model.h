#pragma once

// The program model: every file of the run, numbered and indexed, with the evaluator that
// types references across files (analyzer/program/type_evaluator.h). Rules and the region walk
// ask it what a call reaches; it never re-derives a file's facts. Built once the files are
// lowered; regions that lowering left pending (a capture_begin on a receiver of unknown type,
// a `with` on a function of the program) are confirmed or dropped by settleRegions(), from
// the types, once no more files are to be lowered.

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analyzer/model/capture_model.h"
#include "analyzer/program/call_targets.h"
#include "analyzer/program/replay_facts.h"

namespace graphsafe {

struct FunctionRef {
  const FileModel* file = nullptr;
  const FunctionModel* function = nullptr;
  explicit operator bool() const { return function != nullptr; }
};

class ProgramModel {
 public:
  explicit ProgramModel(std::vector<FileModel> files);
  ProgramModel(const ProgramModel&) = delete;
  // Keeps the pending regions the types confirm and drops the others.
  void settleRegions();
  ProgramModel& operator=(const ProgramModel&) = delete;

  const std::vector<FileModel>& files() const { return files_; }
  // The files back, for another round of lowering (the model is spent).
  std::vector<FileModel> takeFiles() &&;

  // What a call reaches from the frame it is made in (thread-safe; answers are cached).
  std::vector<program::CallTarget> callTargets(program::FrameId caller, const FileModel& file,
                                               const Event& call) const;
  // The first function a call of `caller` reaches in its context-free frame (or none).
  FunctionRef resolveCall(const FileModel& file, const FunctionModel& caller,
                          const Event& call) const;
  // The library functions and methods a call runs, by qualified name ("torch.manual_seed",
  // "torch.optim.lr_scheduler.StepLR.step"), from the types of its callee and receiver in the
  // frame it is made in. Empty when the callee is not known to be a library's.
  std::vector<std::string> libraryCallees(program::FrameId caller, const FileModel& file,
                                          const Event& call) const;
  // The library classes or calls that made every value `ref` (a reference of the frame's file)
  // may hold there ("torch.cuda.Stream", "torch.cuda.default_stream"); empty when some value
  // is not known to be made by one.
  std::vector<std::string> libraryInstances(program::FrameId frame, RefId ref) const;
  // Where the tensor `ref` (a reference of the frame's file) lives, when every value it may
  // hold there is a tensor known to be in host memory of that kind; kUnknown otherwise.
  TensorMemory tensorMemory(program::FrameId frame, RefId ref) const;
  // Whether the values `ref` (a reference of the frame's file) may hold there are tensors,
  // wherever they live: kYes when every one is known to be, kNo when one is known to be
  // something else (a tuple, a list, a host value), kUnknown when the types say neither. What a
  // fix that calls a tensor method may be offered on.
  enum class Tensorness { kYes, kNo, kUnknown };
  Tensorness tensorness(program::FrameId frame, RefId ref) const;
  FunctionRef regionFunction(const FileModel& file, const CaptureRegion& region) const;
  FunctionRef function(std::uint32_t id) const;
  std::uint32_t functionId(const FileModel& file, const FunctionModel& function) const;
  program::FrameId plainFrame(const FileModel& file, const FunctionModel& function) const;
  // A callee's frame with the parameter types a region gives it (graphed callables).
  program::FrameId frameOf(std::uint32_t function, std::vector<program::TypeId> params) const;

  // Does any function of the program open a block of this kind (autocast, stream, ...)? Known
  // once for the run, so that a check can skip its search everywhere when there is none.
  bool hasContext(ContextBlock::Kind kind) const {
    return (context_kinds_ & (1u << static_cast<unsigned>(kind))) != 0;
  }

  // Functions whose calls replay a graph and return its output, or capture lazily reading
  // their own parameters (analyzer/program/replay_facts.h). Built on first use, once the
  // regions are settled (thread-safe).
  const program::ReplayFacts& replayFacts() const;

  // Direct access for the model's own reports (regions, call graph). Not thread-safe.
  program::TypeEvaluator& evaluator() const { return *evaluator_; }
  const program::ProgramIndex& index() const { return *index_; }

 private:
  std::vector<FileModel> files_;
  std::unique_ptr<program::ProgramIndex> index_;
  std::unique_ptr<program::CallSiteIndex> sites_;
  std::unique_ptr<program::TypeEvaluator> evaluator_;
  unsigned context_kinds_ = 0;
  mutable std::mutex mutex_;
  mutable std::once_flag replay_facts_once_;
  mutable std::unique_ptr<program::ReplayFacts> replay_facts_;
  mutable std::unordered_map<std::uint64_t, std::vector<program::CallTarget>> targets_;
};

}  // namespace graphsafe
