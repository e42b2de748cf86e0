#pragma once

// The program model: every file of the run, numbered and indexed, with the evaluator that
// types references across files (analyzer/program/type_evaluator.h). Rules and the region walk
// ask it what a call reaches; it never re-derives a file's facts. Built once the files are
// lowered; regions that lowering left pending (a capture_begin on a receiver of unknown type,
// a `with` on a function of the program) are confirmed or dropped by settleRegions(), from
// the types, once no more files are to be lowered.

#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analyzer/model/capture_model.h"
#include "analyzer/program/call_sites.h"
#include "analyzer/program/call_targets.h"
#include "analyzer/program/replay_cycle.h"
#include "analyzer/program/replay_facts.h"
#include "analyzer/program/replay_variance.h"

namespace graphsafe {

class CaptureFlow;
namespace program {
class ReplayReach;
}

struct FunctionRef {
  const FileModel* file = nullptr;
  const FunctionModel* function = nullptr;
  explicit operator bool() const { return function != nullptr; }
};

class ProgramModel {
 public:
  explicit ProgramModel(std::vector<FileModel> files);
  ~ProgramModel();
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

  // ---- the value model (thread-safe) ----
  // What the expression `ref` of the frame's file holds there: a tensor, a host value (a
  // constant as far as types go; whether it varies is variation()'s), or unknown.
  ValueKind valueKind(program::FrameId frame, RefId ref) const;
  // Is every value the model knows `ref` may hold a host value (a number, a string), whatever
  // else it cannot name? (`self.threshold`, set to 0.5 in __init__ and to a request's field.)
  bool mayBeHost(program::FrameId frame, RefId ref) const;
  // Why the value `ref`, read where `site` says, changes between two replays of the site's
  // region: 1 + an index for variationAt(), or 0 when nothing known changes it.
  std::uint32_t variation(const ReadSite& site, RefId ref) const;
  Variation variationAt(std::uint32_t variation) const;
  // A variation of the lowering's own reason (a loop variable passed down a call, a clock), kept
  // for the values the path binds to parameters.
  std::uint32_t addVariation(Variation variation) const;
  // The flow between capture and replay of one file (built once per file).
  const CaptureFlow& captureFlow(const FileModel& file) const;
  // The code that runs between two replays of a region (replay_cycle.h), built on first use.
  const program::ReplayCycle& replayCycle(const FileModel& file, std::size_t region) const;

  // Questions the value model asks of the types (each takes the lock on its own).
  std::vector<program::Atom> instanceAtoms(program::FrameId frame, RefId ref) const;
  std::vector<std::pair<std::uint32_t, const AttributeWrite*>> writesNamed(
      std::string_view name) const;
  // A method only construction runs: called, as far as the program shows, only from its class's
  // __init__ (or from such a method).
  bool constructsOnly(const FileModel& file, const FunctionModel& function) const;
  std::uint32_t moduleFile(const std::string& dotted, const FileModel& from) const;
  bool isModule(program::FrameId frame, RefId ref, std::uint32_t file) const;
  // The calls of the program whose callee is spelled with this last name (`f(...)`,
  // `obj.f(...)`, `F(...)` for a class F), for the rules that look at a function's callers.
  const std::vector<program::CallSite>& callSitesNamed(std::string_view name) const;
  // The program functions a call of `callee` (a reference of the frame's file) may run.
  std::vector<std::uint32_t> calledFunctions(program::FrameId frame, RefId callee) const;

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
  // Capture flows by file, built on first use.
  mutable std::mutex flow_mutex_;
  mutable std::unordered_map<const FileModel*, std::unique_ptr<CaptureFlow>> flows_;
  // The value model: its cycles, what reaches replays, and the variations it found. One lock,
  // taken before the types' (never while holding it).
  mutable std::recursive_mutex value_mutex_;
  mutable std::unique_ptr<program::ReplayReach> reach_;
  mutable std::unordered_map<std::uint64_t, std::unique_ptr<program::ReplayCycle>> cycles_;
  mutable std::deque<Variation> variations_;
  mutable std::unordered_map<std::uint32_t, bool> construction_only_;
};

}  // namespace graphsafe
