#include "analyzer/program/program_model.h"

#include <algorithm>
#include <unordered_set>

#include "analyzer/model/region_removal.h"

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

std::vector<FileModel> ProgramModel::takeFiles() && {
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

FunctionRef ProgramModel::resolveCall(const FileModel& file, const FunctionModel& caller,
                                      const Event& call) const {
  if (call.kind != EventKind::kCall) return {};
  std::vector<program::CallTarget> targets = callTargets(plainFrame(file, caller), file, call);
  return targets.empty() ? FunctionRef{} : function(targets.front().function);
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

bool ProgramModel::confirms(std::uint32_t file_index, CaptureRegion& region) {
  program::TypeEvaluator& evaluator = *evaluator_;
  program::TypeTable& types = evaluator.types();
  const FileModel& file = files_[file_index];
  if (region.function == kNoFunction || region.function >= file.functions.size()) return false;
  const FrameId frame = evaluator.plainFrame(index_->functionId(file_index, region.function));
  if (region.pending == CaptureRegion::Pending::kGraphReceiver) {
    // Kept unless the receiver is known to be something that is no CUDA graph: a module of
    // the program or a library other than torch (warp's `wp.capture_begin()`), an object of
    // a class of the program without capture_begin.
    TypeId receiver = evaluator.typeOf(frame, region.pending_ref);
    if (!types.isExact(receiver)) return true;
    for (const Atom& atom : types.atoms(receiver)) {
      switch (atom.kind) {
        case Atom::Kind::kExternal:
          if (types.nameAt(atom.a).starts_with("torch.")) return true;
          break;
        case Atom::Kind::kInstance:
          if (evaluator.lookupMethod(atom.a, "capture_begin") != kNoId ||
              evaluator.hasOpaqueBase(atom.a)) {
            return true;
          }
          break;
        default:
          break;
      }
    }
    return false;
  }
  // A `with` on a function of the program: a capture when it is a @contextmanager whose yield
  // is under one. The region takes that capture's graph, pool and stream.
  const Reference& call = file.references[region.pending_ref];
  if (call.kind != Reference::Kind::kCall || call.operands.empty()) return false;
  TypeId callee = evaluator.typeOf(frame, call.operands[0]);
  for (const Atom& atom : types.atoms(callee)) {
    if (atom.kind != Atom::Kind::kFunction && atom.kind != Atom::Kind::kBoundMethod) continue;
    FunctionRef target = function(atom.a);
    if (!target || target.function->yield_region < 0) continue;
    const CaptureRegion& inner =
        target.file->regions[static_cast<std::size_t>(target.function->yield_region)];
    region.graph = inner.graph;
    region.pool = inner.pool;
    region.stream = inner.stream;
    region.mode = inner.mode;
    region.target_qualified = target.file->module_name.empty()
                                  ? target.function->qualified_name
                                  : target.file->module_name + "." +
                                        target.function->qualified_name;
    return true;
  }
  return false;
}

void ProgramModel::settleRegions() {
  std::lock_guard lock(mutex_);
  for (std::uint32_t f = 0; f < files_.size(); ++f) {
    FileModel& file = files_[f];
    std::vector<bool> dead(file.regions.size(), false);
    bool any = false;
    for (std::size_t r = 0; r < file.regions.size(); ++r) {
      CaptureRegion& region = file.regions[r];
      if (region.pending == CaptureRegion::Pending::kNo) continue;
      dead[r] = !confirms(f, region);
      region.pending = CaptureRegion::Pending::kNo;
      region.pending_ref = kNoRef;
      any = any || dead[r];
    }
    if (any) dropRegions(file, dead);
  }
  // Regions are settled: what was cached about them is recomputed on demand.
  targets_.clear();
}

// ---- what the lazy lowering still needs ------------------------------------------------------

std::vector<std::string> ProgramModel::modulesReachedFromRegions() const {
  std::lock_guard lock(mutex_);
  program::TypeEvaluator& evaluator = *evaluator_;
  // Functions visited at most: the walk stays linear in the program.
  constexpr std::size_t kMaxVisits = 1u << 18;
  std::unordered_set<std::uint32_t> visited;
  std::vector<std::uint32_t> pending;
  auto follow = [&](const FileModel& file, FunctionId id, bool regions_only) {
    const FunctionModel& function = file.functions[id];
    const FrameId frame = evaluator.plainFrame(index_->functionId(index_->fileIndex(file), id));
    for (const Event& event : function.events) {
      if (event.kind != EventKind::kCall || (regions_only && event.region < 0)) continue;
      for (const program::CallTarget& target : program::callTargets(evaluator, frame, file, event)) {
        if (visited.size() < kMaxVisits && visited.insert(target.function).second) {
          pending.push_back(target.function);
        }
      }
    }
  };
  for (const FileModel& file : files_) {
    if (!file.lowered) continue;
    std::vector<bool> body_region(file.functions.size(), false);
    for (const CaptureRegion& region : file.regions) {
      if (region.function != kNoFunction && region.function < file.functions.size()) {
        if (!region.whole_function) {
          body_region[region.function] = true;
          continue;
        }
        std::uint32_t id = index_->functionId(index_->fileIndex(file), region.function);
        if (visited.insert(id).second) pending.push_back(id);
      } else if (!region.target_qualified.empty()) {
        evaluator.globalType(region.target_qualified, index_->fileIndex(file));
      }
      // A pending region's reference may name a module not lowered yet (the context manager
      // it enters): asking for its type asks for that module.
      if (region.pending_ref != kNoRef && region.function < file.functions.size()) {
        const FrameId frame = evaluator.plainFrame(
            index_->functionId(index_->fileIndex(file), region.function));
        const Reference& reference = file.references[region.pending_ref];
        evaluator.typeOf(frame, reference.kind == Reference::Kind::kCall && !reference.operands.empty()
                                    ? reference.operands[0]
                                    : region.pending_ref);
      }
    }
    // The body regions of one function are followed in one pass over its events.
    for (FunctionId id = 0; id < file.functions.size(); ++id) {
      if (body_region[id]) follow(file, id, true);
    }
  }
  while (!pending.empty()) {
    std::uint32_t next = pending.back();
    pending.pop_back();
    const FileModel& file = index_->file(index_->functionFile(next));
    follow(file, index_->functionIndex(next), false);
  }
  std::vector<std::string> missing = evaluator.missingModules();
  std::sort(missing.begin(), missing.end());
  missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
  return missing;
}

}  // namespace graphsafe
