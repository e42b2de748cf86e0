// The value model's side of the program model: what a value is and whether it changes between
// replays (replay_variance.h), from the types and the replay cycles.
#include <algorithm>

#include "analyzer/program/capture_flow.h"
#include "analyzer/program/program_model.h"
#include "analyzer/program/replay_reach.h"

namespace graphsafe {

using program::Atom;
using program::FrameId;
using program::kNoId;
using program::TypeId;

ProgramModel::~ProgramModel() = default;

ValueKind ProgramModel::valueKind(FrameId frame, RefId ref) const {
  if (ref == kNoRef) return ValueKind::kUnknown;
  std::lock_guard lock(mutex_);
  const program::TypeTable& types = evaluator_->types();
  const TypeId type = evaluator_->typeOf(frame, ref);
  if (!types.isExact(type)) return ValueKind::kUnknown;
  bool tensors = true;
  bool hosts = true;
  for (const Atom& atom : types.atoms(type)) {
    tensors = tensors && atom.kind == Atom::Kind::kTensor;
    hosts = hosts && atom.kind == Atom::Kind::kHost;
  }
  if (tensors) return ValueKind::kTensor;
  return hosts ? ValueKind::kHostConstant : ValueKind::kUnknown;
}

bool ProgramModel::mayBeHost(FrameId frame, RefId ref) const {
  if (ref == kNoRef) return false;
  std::lock_guard lock(mutex_);
  const auto& atoms = evaluator_->types().atoms(evaluator_->typeOf(frame, ref));
  return !atoms.empty() && std::all_of(atoms.begin(), atoms.end(), [](const Atom& atom) {
    return atom.kind == Atom::Kind::kHost;
  });
}

std::uint32_t ProgramModel::variation(const ReadSite& site, RefId ref) const {
  if (ref == kNoRef || site.file == nullptr || site.region_file == nullptr) return 0;
  std::lock_guard lock(value_mutex_);
  std::optional<Variation> found = program::ReplayVariance(*this).of(site, ref);
  if (!found) return 0;
  variations_.push_back(std::move(*found));
  return static_cast<std::uint32_t>(variations_.size());
}

std::uint32_t ProgramModel::addVariation(Variation variation) const {
  std::lock_guard lock(value_mutex_);
  variations_.push_back(std::move(variation));
  return static_cast<std::uint32_t>(variations_.size());
}

Variation ProgramModel::variationAt(std::uint32_t variation) const {
  std::lock_guard lock(value_mutex_);
  if (variation == 0 || variation > variations_.size()) return {};
  return variations_[variation - 1];
}

const CaptureFlow& ProgramModel::captureFlow(const FileModel& file) const {
  std::lock_guard lock(flow_mutex_);
  auto [it, added] = flows_.try_emplace(&file);
  if (added) it->second = std::make_unique<CaptureFlow>(file);
  return *it->second;
}

const program::ReplayCycle& ProgramModel::replayCycle(const FileModel& file,
                                                      std::size_t region) const {
  std::lock_guard lock(value_mutex_);
  const std::uint64_t key = program::regionKey(index_->fileIndex(file), region);
  auto [it, added] = cycles_.try_emplace(key);
  if (added) {
    if (!reach_) reach_ = std::make_unique<program::ReplayReach>(*this);
    it->second = std::make_unique<program::ReplayCycle>(
        program::buildReplayCycle(*this, *reach_, file, region));
  }
  return *it->second;
}

std::vector<Atom> ProgramModel::instanceAtoms(FrameId frame, RefId ref) const {
  if (ref == kNoRef) return {};
  std::lock_guard lock(mutex_);
  std::vector<Atom> atoms;
  for (const Atom& atom : evaluator_->types().atoms(evaluator_->typeOf(frame, ref))) {
    if (atom.kind == Atom::Kind::kInstance) atoms.push_back(atom);
  }
  return atoms;
}

std::vector<std::pair<std::uint32_t, const AttributeWrite*>> ProgramModel::writesNamed(
    std::string_view name) const {
  std::lock_guard lock(mutex_);
  return evaluator_->writesNamed(name);
}

bool ProgramModel::constructsOnly(const FileModel& file, const FunctionModel& function) const {
  if (!function.is_method || function.class_index < 0) return false;
  const std::uint32_t id = functionId(file, function);
  {
    std::lock_guard lock(value_mutex_);
    if (auto it = construction_only_.find(id); it != construction_only_.end()) return it->second;
  }
  // Every call of it the program makes is `self.<name>(...)` in a constructor of the class.
  bool only = false;
  const std::uint32_t file_index = index_->fileIndex(file);
  for (const program::CallSite& site : sites_->named(function.name)) {
    if (site.file != file_index || site.function >= file.functions.size()) {
      only = false;
      break;
    }
    const FunctionModel& caller = file.functions[site.function];
    if (caller.class_index != function.class_index ||
        (caller.name != "__init__" && caller.name != "__post_init__")) {
      only = false;
      break;
    }
    only = true;
  }
  std::lock_guard lock(value_mutex_);
  construction_only_[id] = only;
  return only;
}

std::uint32_t ProgramModel::moduleFile(const std::string& dotted, const FileModel& from) const {
  return index_->moduleFile(dotted, index_->fileIndex(from));
}

bool ProgramModel::isModule(FrameId frame, RefId ref, std::uint32_t file) const {
  if (ref == kNoRef) return false;
  std::lock_guard lock(mutex_);
  for (const Atom& atom : evaluator_->types().atoms(evaluator_->typeOf(frame, ref))) {
    if (atom.kind == Atom::Kind::kModule && atom.a == file) return true;
  }
  return false;
}

std::vector<std::uint32_t> ProgramModel::calledFunctions(FrameId frame, RefId callee) const {
  if (callee == kNoRef) return {};
  std::lock_guard lock(mutex_);
  std::vector<std::uint32_t> functions;
  for (const Atom& atom : evaluator_->types().atoms(evaluator_->typeOf(frame, callee))) {
    if (atom.kind == Atom::Kind::kFunction || atom.kind == Atom::Kind::kBoundMethod) {
      functions.push_back(atom.a);
    }
  }
  return functions;
}

}  // namespace graphsafe
