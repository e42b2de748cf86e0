#include "analyzer/engine/lazy_resolution.h"

#include <algorithm>
#include <unordered_set>

#include "analyzer/engine/definition_index.h"

namespace graphsafe {

namespace {

// Functions visited per round at most: the walk stays linear in the program, never more.
constexpr std::size_t kMaxVisits = 1u << 18;

class ReachWalk {
 public:
  ReachWalk(const DefinitionIndex& index, std::vector<std::string>& missing)
      : index_(index), missing_(missing) {}

  void fromRegion(const FileModel& file, std::size_t r) {
    const CaptureRegion& region = file.regions[r];
    FunctionRef start;
    if (region.function != kNoFunction && region.function < file.functions.size()) {
      start = {&file, &file.functions[region.function]};
    } else if (!region.target_qualified.empty()) {
      start = index_.resolve(region.target_qualified, &missing_);
    }
    if (!start) return;
    if (region.whole_function) {
      enqueue(start);
    } else {
      follow(start, static_cast<std::int32_t>(r));
    }
    drain();
  }

 private:
  void enqueue(FunctionRef function) {
    if (visited_.size() >= kMaxVisits || !visited_.insert(function.function).second) return;
    pending_.push_back(function);
  }

  void drain() {
    while (!pending_.empty()) {
      FunctionRef next = pending_.back();
      pending_.pop_back();
      follow(next, -1);
    }
  }

  // The calls of `function` (only those under `region` when it is not -1).
  void follow(FunctionRef function, std::int32_t region) {
    for (const Event& event : function.function->events) {
      if (event.kind != EventKind::kCall) continue;
      if (region >= 0 && event.region != region) continue;
      if (event.callee != kNoFunction && event.callee < function.file->functions.size()) {
        enqueue({function.file, &function.file->functions[event.callee]});
      } else if (!event.callee_qualified.empty()) {
        FunctionRef callee = index_.resolve(event.callee_qualified, &missing_);
        if (callee) enqueue(callee);
      }
    }
  }

  const DefinitionIndex& index_;
  std::vector<std::string>& missing_;
  std::unordered_set<const FunctionModel*> visited_;
  std::vector<FunctionRef> pending_;
};

}  // namespace

std::vector<std::string> modulesReachedFromRegions(const std::vector<FileModel>& models,
                                                   const std::vector<bool>& lowered) {
  DefinitionIndex index;
  for (std::size_t i = 0; i < models.size(); ++i) {
    if (lowered[i]) index.add(models[i]);
  }
  std::vector<std::string> missing;
  ReachWalk walk(index, missing);
  for (std::size_t i = 0; i < models.size(); ++i) {
    if (!lowered[i]) continue;
    for (std::size_t r = 0; r < models[i].regions.size(); ++r) walk.fromRegion(models[i], r);
  }
  std::sort(missing.begin(), missing.end());
  missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
  return missing;
}

}  // namespace graphsafe
