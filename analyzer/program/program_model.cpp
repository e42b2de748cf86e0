#include "analyzer/program/program_model.h"

#include <algorithm>
#include <unordered_set>

#include "analyzer/model/region_removal.h"
#include "analyzer/program/capture_flow.h"
#include "analyzer/program/replay_reach.h"

namespace graphsafe {

using program::Atom;
using program::FrameId;
using program::kNoId;
using program::TypeId;

namespace {

std::uint64_t targetKey(FrameId frame, const Event& call) {
  return (std::uint64_t{frame} << 40) ^ reinterpret_cast<std::uintptr_t>(&call);
}

}  // namespace

ProgramModel::ProgramModel(std::vector<FileModel> files) : files_(std::move(files)) {
  index_ = std::make_unique<program::ProgramIndex>(files_);
  sites_ = std::make_unique<program::CallSiteIndex>(*index_);
  evaluator_ = std::make_unique<program::TypeEvaluator>(*index_, *sites_);
  for (const FileModel& file : files_) {
    for (const FunctionModel& function : file.functions) {
      for (const ContextBlock& block : function.contexts) {
        context_kinds_ |= 1u << static_cast<unsigned>(block.kind);
      }
    }
  }
}

const std::vector<program::CallSite>& ProgramModel::callSitesNamed(std::string_view name) const {
  return sites_->named(name);
}

std::vector<FileModel> ProgramModel::takeFiles() && {
  cycles_.clear();
  reach_.reset();
  flows_.clear();
  variations_.clear();
  evaluator_.reset();
  sites_.reset();
  index_.reset();
  targets_.clear();
  return std::move(files_);
}

std::uint32_t ProgramModel::functionId(const FileModel& file, const FunctionModel& function) const {
  return index_->functionId(index_->fileIndex(file),
                            static_cast<FunctionId>(&function - file.functions.data()));
}

FrameId ProgramModel::plainFrame(const FileModel& file, const FunctionModel& function) const {
  std::lock_guard lock(mutex_);
  return evaluator_->plainFrame(functionId(file, function));
}

FrameId ProgramModel::frameOf(std::uint32_t function, std::vector<TypeId> params) const {
  std::lock_guard lock(mutex_);
  return evaluator_->frame(function, std::move(params));
}

FunctionRef ProgramModel::function(std::uint32_t id) const {
  if (id == kNoId || id >= index_->functionCount()) return {};
  const FileModel& file = index_->file(index_->functionFile(id));
  return {&file, &file.functions[index_->functionIndex(id)]};
}

std::vector<program::CallTarget> ProgramModel::callTargets(FrameId caller, const FileModel& file,
                                                           const Event& call) const {
  if (call.kind != EventKind::kCall) return {};
  std::lock_guard lock(mutex_);
  auto [it, inserted] = targets_.try_emplace(targetKey(caller, call));
  if (inserted) it->second = program::callTargets(*evaluator_, caller, file, call);
  return it->second;
}

const program::ReplayFacts& ProgramModel::replayFacts() const {
  std::call_once(replay_facts_once_, [this] {
    replay_facts_ = std::make_unique<program::ReplayFacts>(files_, *index_);
  });
  return *replay_facts_;
}

FunctionRef ProgramModel::resolveCall(const FileModel& file, const FunctionModel& caller,
                                      const Event& call) const {
  if (call.kind != EventKind::kCall) return {};
  std::vector<program::CallTarget> targets = callTargets(plainFrame(file, caller), file, call);
  return targets.empty() ? FunctionRef{} : function(targets.front().function);
}

std::vector<std::string> ProgramModel::libraryCallees(FrameId caller, const FileModel& file,
                                                      const Event& call) const {
  if (call.kind != EventKind::kCall || call.call >= file.references.size()) return {};
  const Reference& reference = file.references[call.call];
  if (reference.kind != Reference::Kind::kCall || reference.operands.empty() ||
      reference.operands[0] == kNoRef) {
    return {};
  }
  std::lock_guard lock(mutex_);
  const program::TypeTable& types = evaluator_->types();
  std::vector<std::string> names;
  const TypeId callee = evaluator_->typeOf(caller, reference.operands[0]);
  for (const Atom& atom : types.atoms(callee)) {
    if (atom.kind == Atom::Kind::kExternal && atom.b == 0) {
      names.push_back(types.nameAt(atom.a));
    } else if (atom.kind == Atom::Kind::kLibraryMethod) {
      for (const Atom& receiver : types.atoms(atom.b)) {
        if (receiver.kind != Atom::Kind::kExternal || receiver.b != 1) continue;
        names.push_back(types.nameAt(receiver.a) + "." + types.nameAt(atom.a));
      }
    }
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::vector<std::string> ProgramModel::libraryInstances(FrameId frame, RefId ref) const {
  if (ref == kNoRef) return {};
  std::lock_guard lock(mutex_);
  const program::TypeTable& types = evaluator_->types();
  const TypeId type = evaluator_->typeOf(frame, ref);
  if (!types.isExact(type)) return {};
  std::vector<std::string> names;
  for (const Atom& atom : types.atoms(type)) {
    if (atom.kind != Atom::Kind::kExternal || atom.b != 1) return {};
    names.push_back(types.nameAt(atom.a));
  }
  return names;
}

TensorMemory ProgramModel::tensorMemory(FrameId frame, RefId ref) const {
  if (ref == kNoRef) return TensorMemory::kUnknown;
  std::lock_guard lock(mutex_);
  const program::TypeTable& types = evaluator_->types();
  const TypeId type = evaluator_->typeOf(frame, ref);
  if (!types.isExact(type)) return TensorMemory::kUnknown;
  std::uint8_t memory = types.atoms(type).front().sub;
  for (const Atom& atom : types.atoms(type)) {
    if (atom.kind != Atom::Kind::kTensor || atom.sub != memory) return TensorMemory::kUnknown;
  }
  return static_cast<TensorMemory>(memory);
}

ProgramModel::Tensorness ProgramModel::tensorness(FrameId frame, RefId ref) const {
  if (ref == kNoRef) return Tensorness::kUnknown;
  std::lock_guard lock(mutex_);
  const program::TypeTable& types = evaluator_->types();
  const TypeId type = evaluator_->typeOf(frame, ref);
  const std::vector<Atom>& atoms = types.atoms(type);
  const bool other = std::any_of(atoms.begin(), atoms.end(),
                                 [](const Atom& atom) { return atom.kind != Atom::Kind::kTensor; });
  if (other) return Tensorness::kNo;
  return types.isExact(type) ? Tensorness::kYes : Tensorness::kUnknown;
}

FunctionRef ProgramModel::regionFunction(const FileModel& file, const CaptureRegion& region) const {
  if (region.function != kNoFunction && region.function < file.functions.size()) {
    return {&file, &file.functions[region.function]};
  }
  if (region.target_qualified.empty()) return {};
  std::lock_guard lock(mutex_);
  TypeId type = evaluator_->globalType(region.target_qualified, index_->fileIndex(file));
  for (const Atom& atom : evaluator_->types().atoms(type)) {
    std::uint32_t id = kNoId;
    if (atom.kind == Atom::Kind::kFunction) id = atom.a;
    // A module class handed over: its forward is what is captured or compiled.
    if (atom.kind == Atom::Kind::kClass) id = evaluator_->lookupMethod(atom.a, "forward");
    if (atom.kind == Atom::Kind::kInstance) id = evaluator_->callMethodOf(atom.a);
    if (id != kNoId) return function(id);
  }
  return {};
}

// ---- regions the types confirm --------------------------------------------------------------

namespace {

// Whether a pending region is a capture, decided from the types. A `with` on a context manager
// is one only when the region its yield sits in is one (itself decided the same way: a
// context manager may yield inside another's `with`).
class RegionSettlement {
 public:
  RegionSettlement(std::vector<FileModel>& files, const program::ProgramIndex& index,
                   program::TypeEvaluator& evaluator)
      : files_(files), index_(index), evaluator_(evaluator), state_(files.size()) {
    for (std::size_t f = 0; f < files.size(); ++f) {
      state_[f].assign(files[f].regions.size(), State::kUndecided);
    }
  }

  bool isCapture(std::uint32_t file, std::size_t region) {
    State& state = state_[file][region];
    if (state == State::kYes) return true;
    if (state == State::kNo || state == State::kDeciding) return false;  // a cycle: no capture
    CaptureRegion& captured = files_[file].regions[region];
    if (captured.pending == CaptureRegion::Pending::kNo) {
      state = State::kYes;
      return true;
    }
    state = State::kDeciding;
    bool yes = false;
    if (captured.pending_scope < files_[file].functions.size()) {
      switch (captured.pending) {
        case CaptureRegion::Pending::kGraphReceiver:
          yes = receiverMayBeGraph(file, captured);
          break;
        case CaptureRegion::Pending::kCaptureContext:
          yes = entersCapture(file, captured);
          break;
        case CaptureRegion::Pending::kCompileMode:
          yes = modeMayCapture(file, captured);
          break;
        case CaptureRegion::Pending::kNo:
          yes = true;
          break;
      }
    }
    state_[file][region] = yes ? State::kYes : State::kNo;
    return yes;
  }

  void apply() {
    for (std::uint32_t f = 0; f < files_.size(); ++f) {
      FileModel& file = files_[f];
      std::vector<bool> dead(file.regions.size(), false);
      bool any = false;
      for (std::size_t r = 0; r < file.regions.size(); ++r) {
        if (file.regions[r].pending == CaptureRegion::Pending::kNo) continue;
        dead[r] = !isCapture(f, r);
        any = any || dead[r];
      }
      for (CaptureRegion& region : file.regions) {
        region.pending = CaptureRegion::Pending::kNo;
        region.pending_ref = kNoRef;
        region.pending_scope = kNoFunction;
      }
      if (any) dropRegions(file, dead);
    }
  }

 private:
  enum class State : std::uint8_t { kUndecided, kDeciding, kYes, kNo };

  program::FrameId frameOf(std::uint32_t file, const CaptureRegion& region) {
    return evaluator_.plainFrame(index_.functionId(file, region.pending_scope));
  }

  // Kept unless the receiver is known to be something that is no CUDA graph: a module of the
  // program or a library other than torch (warp's `wp.capture_begin()`), an object of a class
  // of the program without capture_begin.
  bool receiverMayBeGraph(std::uint32_t file, const CaptureRegion& region) {
    program::TypeTable& types = evaluator_.types();
    TypeId receiver = evaluator_.typeOf(frameOf(file, region), region.pending_ref);
    if (!types.isExact(receiver)) return true;
    for (const Atom& atom : types.atoms(receiver)) {
      if (atom.kind == Atom::Kind::kExternal && types.nameAt(atom.a).starts_with("torch.")) {
        return true;
      }
      if (atom.kind == Atom::Kind::kInstance &&
          (evaluator_.lookupMethod(atom.a, "capture_begin") != kNoId ||
           evaluator_.hasOpaqueBase(atom.a))) {
        return true;
      }
    }
    return false;
  }

  bool modeMayCapture(std::uint32_t file, const CaptureRegion& region) {
    program::TypeTable& types = evaluator_.types();
    for (const Atom& atom :
         types.atoms(evaluator_.typeOf(frameOf(file, region), region.pending_ref))) {
      if (atom.kind != Atom::Kind::kHost || atom.a == 0) continue;
      std::string_view mode = types.nameAt(atom.a);
      if (mode == "s:reduce-overhead" || mode == "s:max-autotune") return true;
    }
    return false;
  }

  // A `with` on a function of the program: a capture when it is a @contextmanager whose yield
  // is under one. The region takes that capture's graph, pool and stream.
  bool entersCapture(std::uint32_t file, CaptureRegion& region) {
    const Reference& call = files_[file].references[region.pending_ref];
    if (call.kind != Reference::Kind::kCall || call.operands.empty()) return false;
    TypeId callee = evaluator_.typeOf(frameOf(file, region), call.operands[0]);
    for (const Atom& atom : evaluator_.types().atoms(callee)) {
      if (atom.kind != Atom::Kind::kFunction && atom.kind != Atom::Kind::kBoundMethod) continue;
      const std::uint32_t target_file = index_.functionFile(atom.a);
      const FunctionModel& target = index_.function(atom.a);
      // The yield's region, or the one around it when that one is no capture.
      for (std::int32_t r = target.yield_region; r >= 0;
           r = files_[target_file].regions[static_cast<std::size_t>(r)].parent) {
        if (!isCapture(target_file, static_cast<std::size_t>(r))) continue;
        const FileModel& owner = files_[target_file];
        const CaptureRegion& inner = owner.regions[static_cast<std::size_t>(r)];
        region.graph = inner.graph;
        region.pool = inner.pool;
        region.stream = inner.stream;
        region.mode = inner.mode;
        region.target_qualified = owner.module_name.empty()
                                      ? target.qualified_name
                                      : owner.module_name + "." + target.qualified_name;
        return true;
      }
    }
    return false;
  }

  std::vector<FileModel>& files_;
  const program::ProgramIndex& index_;
  program::TypeEvaluator& evaluator_;
  std::vector<std::vector<State>> state_;
};

}  // namespace

void ProgramModel::settleRegions() {
  std::lock_guard lock(mutex_);
  RegionSettlement(files_, *index_, *evaluator_).apply();
  // Regions are settled: what was cached about them is recomputed on demand.
  targets_.clear();
}

}  // namespace graphsafe
